import { formatProblem } from '../catalog/index.js';
import type { ValidateReport } from '../catalog/index.js';

export { defaultCatalogFiles, validateFiles } from '../catalog/index.js';
export type { ValidateReport } from '../catalog/index.js';

export function formatReport(report: ValidateReport): string {
  const lines = report.problems.map(formatProblem);
  const errors = report.problems.filter((p) => p.severity === 'error').length;
  const warnings = report.problems.length - errors;
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  const scope = `${plural(report.files.length, 'file')}: ${plural(report.configKeys, 'config key')}, ${plural(report.runnerLabels, 'runner label')}`;
  if (lines.length > 0) lines.push('');
  lines.push(
    report.ok
      ? `✓ valid (${scope})${warnings ? `, ${plural(warnings, 'warning')}` : ''}`
      : `✗ ${plural(errors, 'error')}${warnings ? `, ${plural(warnings, 'warning')}` : ''} (${scope})`,
  );
  return `${lines.join('\n')}\n`;
}
