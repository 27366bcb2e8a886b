import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/**
 * `await sleep(<number>)` in a test waits for time, not for what the test checks: slow when the
 * thing has happened, flaky when it has not. Tests wait with waitFor (test/support/wait.ts) on the
 * condition; a fixed pause that is itself part of the test says why in a comment on its line or
 * the line above. (A no-restricted-syntax selector cannot see comments, hence this rule.)
 */
const fixedSleep = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const comments = context.sourceCode.getAllComments();
    return {
      'AwaitExpression > CallExpression[arguments.length=1]'(call) {
        const name = call.callee.type === 'Identifier' ? call.callee.name : undefined;
        const [ms] = call.arguments;
        if (!['sleep', 'delay', 'setTimeout'].includes(name) || ms.type !== 'Literal' || typeof ms.value !== 'number') return;
        const line = call.loc.start.line;
        if (comments.some((c) => c.loc.start.line === line || c.loc.end.line === line - 1)) return;
        context.report({
          node: call,
          message: `await ${name}(${ms.value}) waits for time: waitFor the condition (test/support/wait.ts), or say in a comment on this line or the one above why the pause is part of the test`,
        });
      },
    };
  },
};

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'scratch/', 'coverage/', '.cache/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        performance: 'readonly',
        Buffer: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        setInterval: 'readonly',
        setImmediate: 'readonly',
        clearInterval: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-control-regex': 'off',
    },
  },
  {
    // The bin's launcher is CommonJS (scripts/launcher.cjs says why).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['test/**/*.{ts,js,mjs}'],
    plugins: { frontier: { rules: { 'no-fixed-sleep': fixedSleep } } },
    rules: { 'frontier/no-fixed-sleep': 'error' },
  },
  {
    // The dashboard runs in the browser.
    files: ['web/src/**/*.{ts,tsx}'],
    languageOptions: {
      globals: {
        window: 'readonly',
        document: 'readonly',
        location: 'readonly',
        history: 'readonly',
        addEventListener: 'readonly',
        removeEventListener: 'readonly',
        ResizeObserver: 'readonly',
        HTMLDivElement: 'readonly',
        URLSearchParams: 'readonly',
        Blob: 'readonly',
      },
    },
  },
  {
    // The API contract is shared with the browser: nothing from the rest of src/, nothing of Node's.
    files: ['src/contract/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!\\./)',
              message:
                "src/contract runs in the browser too: it imports only its own modules (no package, nothing of Node's; the folder layering is scripts/check-deps.mjs).",
            },
          ],
        },
      ],
    },
  },
  {
    // A function past 150 lines is doing several jobs: the run path and the API stay in small parts.
    files: ['src/api/**/*.ts', 'src/launch/**/*.ts', 'src/plan/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 150, skipBlankLines: true, skipComments: true }] },
  },
  prettier,
);
