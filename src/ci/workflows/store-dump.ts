/**
 * The store's scheduled dump, as InferenceX's db-backup.yml: `frontier store dump` of the store
 * (API token hashes left out), checked by restoring it into a scratch SQLite file and dumping that
 * again to the same bytes, then kept as an artifact and published as a release asset.
 */
import { UPLOAD, frontierEnv, setupSteps } from './common.js';
import type { WorkflowOptions } from './common.js';

export const STORE_DUMP_WORKFLOW = 'frontier-store-dump.yml';

export function storeDumpWorkflow(o: WorkflowOptions): Record<string, unknown> {
  return {
    name: 'Frontier store dump',
    on: {
      schedule: [{ cron: '17 3 * * *' }],
      workflow_dispatch: {
        inputs: {
          release: { description: 'publish the dump as a release asset', required: false, type: 'boolean', default: true },
        },
      },
    },
    // One dump at a time; a second waits rather than racing the first's release.
    concurrency: { group: 'frontier-store-dump', 'cancel-in-progress': false },
    permissions: { contents: 'read' },
    env: frontierEnv(o),
    jobs: {
      dump: {
        'runs-on': 'ubuntu-latest',
        permissions: { contents: 'write' },
        env: { FRONTIER_DB: `\${{ secrets.${o.dbSecret} }}`, GH_TOKEN: '${{ github.token }}' },
        steps: [
          ...setupSteps(o, { history: false }),
          { name: 'Dump the store', run: 'frontier store dump store-dump --omit tokens' },
          {
            name: 'Check the dump',
            // Restored and dumped again, the same bytes: every file is readable and complete.
            run: [
              'frontier store restore store-dump --db scratch.db',
              'frontier store dump check-dump --db scratch.db --omit tokens',
              'diff -r store-dump check-dump',
            ].join('\n'),
          },
          {
            name: 'Keep the dump',
            uses: UPLOAD,
            with: { name: 'frontier-store-dump', path: 'store-dump/', 'retention-days': 30, 'if-no-files-found': 'error' },
          },
          {
            name: 'Publish the dump',
            if: "github.event_name == 'schedule' || inputs.release",
            run: [
              'tag="store-dump-$(date -u +%Y-%m-%d)"',
              'tar -czf "$tag.tar.gz" store-dump',
              // A second dump on the same day replaces that day's asset.
              'if gh release view "$tag" --repo "$GITHUB_REPOSITORY" > /dev/null 2>&1; then',
              '  gh release upload "$tag" "$tag.tar.gz" --repo "$GITHUB_REPOSITORY" --clobber',
              'else',
              '  gh release create "$tag" "$tag.tar.gz" --repo "$GITHUB_REPOSITORY" --title "Store dump $tag" \\',
              '    --notes "The Frontier store as JSON Lines, one file per table, and manifest.json (docs/store.md: Dumps)." --latest=false',
              'fi',
            ].join('\n'),
          },
        ],
      },
    },
  };
}
