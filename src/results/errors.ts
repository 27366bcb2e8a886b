import { UserError } from '../util/user-error.js';

/** The Python exception class the reference raises for the same input. */
export type PythonErrorType = 'OSError' | 'ValueError' | 'TypeError' | 'KeyError' | 'ZeroDivisionError' | 'OverflowError';

/**
 * A point that the reference `process_result.py` rejects. `message` is the reference's exception
 * text (what follows `ValueError: ` on its traceback's last line); `hint` says how to fix it.
 * `pythonType` is absent for Frontier's own refusals (e.g. power telemetry it cannot integrate).
 */
export class ResultsError extends UserError {
  constructor(
    message: string,
    readonly pythonType?: PythonErrorType,
    hint?: string,
  ) {
    super(message, { hint });
    this.name = 'ResultsError';
  }

  /** One line: `ValueError: <message> (<hint>)`. */
  describe(): string {
    return `${this.pythonType ? `${this.pythonType}: ` : ''}${this.message}${this.hint ? ` (${this.hint})` : ''}`;
  }
}
