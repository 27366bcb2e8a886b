import { PythonError } from '../pycompat/index.js';

/**
 * A point that the reference `process_result.py` rejects. `message` is the reference's exception
 * text (what follows `ValueError: ` on its traceback's last line); `hint` says how to fix it.
 * `pythonType` is absent for Frontier's own refusals (e.g. power telemetry it cannot integrate).
 * The Python built-ins it calls (`int()`, `float()`, division) raise a plain `PythonError`.
 */
export class ResultsError extends PythonError {
  constructor(...args: ConstructorParameters<typeof PythonError>) {
    super(...args);
    this.name = 'ResultsError';
  }
}
