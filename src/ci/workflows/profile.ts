/**
 * The profiling workflow, as InferenceX's profile.yml: dispatched with a config key and a
 * concurrency, it profiles the first row that generates (one point, under the engine's profiler)
 * on that row's runner and keeps the trace as an artifact.
 */
import { UPLOAD, frontierEnv, setupSteps } from './common.js';
import type { WorkflowOptions } from './common.js';

export const PROFILE_WORKFLOW = 'frontier-profile.yml';

export function profileWorkflow(o: WorkflowOptions): Record<string, unknown> {
  return {
    name: 'Frontier profile',
    on: {
      workflow_dispatch: {
        inputs: {
          'config-key': { description: 'the config key to profile', required: true, type: 'string' },
          'config-file': {
            description: 'the master config that defines it',
            required: false,
            type: 'string',
            default: 'configs/nvidia-master.yaml',
          },
          conc: { description: "a concurrency of the key's search space", required: false, type: 'string', default: '64' },
        },
      },
    },
    permissions: { contents: 'read' },
    env: frontierEnv(o),
    jobs: {
      plan: {
        'runs-on': 'ubuntu-latest',
        outputs: { row: '${{ steps.row.outputs.row }}' },
        steps: [
          ...setupSteps(o, { history: false }),
          {
            name: 'The first row at that concurrency',
            id: 'row',
            env: { KEY: '${{ inputs.config-key }}', FILE: '${{ inputs.config-file }}', CONC: '${{ inputs.conc }}' },
            run: [
              'frontier matrix test-config --config-files "$FILE" --runner-config configs/runners.yaml \\',
              '  --config-keys "$KEY" --conc "$CONC" --no-evals > rows.json',
              'printf \'row=%s\\n\' "$(jq -c \'.[0]\' rows.json)" >> "$GITHUB_OUTPUT"',
            ].join('\n'),
          },
        ],
      },
      profile: {
        needs: 'plan',
        name: "profile ${{ fromJSON(needs.plan.outputs.row)['exp-name'] }} conc ${{ fromJSON(needs.plan.outputs.row).conc }}",
        'runs-on': '${{ fromJSON(needs.plan.outputs.row).runner }}',
        'timeout-minutes': 180,
        steps: [
          ...setupSteps(o, { history: false }),
          { name: 'The row', env: { ROW: '${{ needs.plan.outputs.row }}' }, run: 'printf \'[%s]\\n\' "$ROW" > row.json' },
          { name: 'Profile', run: 'frontier run --matrix row.json --profile --out run' },
          {
            name: 'Keep the trace',
            if: 'always()',
            uses: UPLOAD,
            with: {
              name: "profile_${{ fromJSON(needs.plan.outputs.row)['exp-name'] }}",
              path: 'run/server_logs_*/profile_*.trace.json.gz\nrun/run.json',
              'if-no-files-found': 'warn',
            },
          },
        ],
      },
    },
  };
}
