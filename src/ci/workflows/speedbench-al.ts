/**
 * The golden-AL collection workflow, as InferenceX's speedbench-al.yml: dispatched with a model,
 * its draft lengths (mtp-list), thinking modes, SPEED-Bench category, output length and
 * thinking-on chat_template_kwargs, it runs `frontier al collect` on a GPU runner, which starts the
 * engine once per draft length with the `serve` command, and keeps the golden YAML (and the
 * engines' logs) as artifacts. The runner must hold SPEED-Bench prepared (`data`): nothing is
 * downloaded.
 */
import { UPLOAD, frontierEnv, setupSteps } from './common.js';
import type { WorkflowOptions } from './common.js';

export const SPEEDBENCH_AL_WORKFLOW = 'frontier-speedbench-al.yml';

/** The engine command the workflow starts per draft length unless told otherwise: vLLM with MTP. */
export const DEFAULT_SERVE =
  'vllm serve {model} --port {port} --speculative-config \'{"method": "mtp", "num_speculative_tokens": {draft}}\'';

const OUT = 'speedbench-reference-al.yaml';

export function speedbenchAlWorkflow(o: WorkflowOptions): Record<string, unknown> {
  const input = (description: string, value: string, required = false): Record<string, unknown> => ({
    description,
    required,
    type: 'string',
    ...(required ? {} : { default: value }),
  });
  return {
    name: 'Frontier SPEED-Bench AL collection',
    on: {
      workflow_dispatch: {
        inputs: {
          runner: input('the self-hosted GPU runner label', '', true),
          model: input(
            'the model: what the engine serves and the requests name; the golden key is its basename, lower-cased',
            '',
            true,
          ),
          'model-prefix': input("InferenceX's model prefix: names the artifacts", 'model'),
          serve: input(
            'the engine command per draft length: {model}, {port}, {draft} (num_speculative_tokens), {thinking} (on/off)',
            DEFAULT_SERVE,
          ),
          data: input("SPEED-Bench on the runner: the folder NeMo-Skills' speed-bench prepare.py wrote", 'speed_bench_data'),
          'mtp-list': input('space-separated draft lengths (num_speculative_tokens)', '1 2 3 4 5 6 7 8'),
          'thinking-modes': input('space-separated thinking modes to collect', 'off on'),
          category: input('the SPEED-Bench category', 'coding'),
          'output-len': input('max_tokens of each request', '4096'),
          'thinking-kwargs': input(
            'chat_template_kwargs JSON of the thinking-on requests (match the golden config)',
            '{"thinking": true, "reasoning_effort": "high"}',
          ),
          'measured-on': input('what the header says it was measured on, e.g. "B300, vLLM MTP" (default: the model)', ''),
        },
      },
    },
    permissions: { contents: 'read' },
    env: frontierEnv(o),
    jobs: {
      'collect-al': {
        name: 'SPEED-Bench AL | ${{ inputs.category }} | mtp=[${{ inputs.mtp-list }}] | thinking=[${{ inputs.thinking-modes }}]',
        'runs-on': '${{ inputs.runner }}',
        'timeout-minutes': 600,
        steps: [
          ...setupSteps(o, { history: false }),
          {
            name: 'Collect the AL matrix',
            env: {
              MODEL: '${{ inputs.model }}',
              SERVE: '${{ inputs.serve }}',
              DATA: '${{ inputs.data }}',
              DRAFT_LENGTHS: '${{ inputs.mtp-list }}',
              THINKING: '${{ inputs.thinking-modes }}',
              CATEGORY: '${{ inputs.category }}',
              OUTPUT_LEN: '${{ inputs.output-len }}',
              THINKING_KWARGS: '${{ inputs.thinking-kwargs }}',
              MEASURED_ON: '${{ inputs.measured-on }}',
              SOURCE_RUN: '${{ github.server_url }}/${{ github.repository }}/actions/runs/${{ github.run_id }}',
            },
            run: [
              'frontier al collect --model "$MODEL" --serve "$SERVE" --data "$DATA" \\',
              '  --draft-lengths "$DRAFT_LENGTHS" --thinking "$THINKING" --category "$CATEGORY" \\',
              '  --output-len "$OUTPUT_LEN" --thinking-kwargs "$THINKING_KWARGS" \\',
              '  --measured-on "${MEASURED_ON:-$MODEL}" --source-run "$SOURCE_RUN" \\',
              `  --out ${OUT} --log-dir speedbench_results`,
            ].join('\n'),
          },
          {
            name: 'The matrix in the summary',
            if: 'always()',
            run: [
              `[ -f ${OUT} ] || exit 0`,
              `{ printf '### SPEED-Bench AL matrix\\n\\n\`\`\`yaml\\n'; cat ${OUT}; printf '\`\`\`\\n'; } >> "$GITHUB_STEP_SUMMARY"`,
            ].join('\n'),
          },
          {
            name: 'Keep the matrix',
            if: 'always()',
            uses: UPLOAD,
            with: { name: 'speedbench-reference-al-${{ inputs.model-prefix }}', path: OUT, 'if-no-files-found': 'warn' },
          },
          {
            name: "Keep the engines' logs",
            if: 'always()',
            uses: UPLOAD,
            with: {
              name: 'speedbench_server_logs-${{ inputs.model-prefix }}',
              path: 'speedbench_results/server_*.log',
              'if-no-files-found': 'ignore',
            },
          },
        ],
      },
    },
  };
}
