/**
 * Values that become part of file and directory names (RESULT_FILENAME, the run directory's
 * bmk_*, eval_* and server_logs_*): no "/", no leading "." (so no "..") and nothing a shell or a
 * file system treats specially. Every value in the InferenceX configs fits.
 */
export const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
export const SAFE_NAME_TEXT = 'letters, digits, ".", "_" and "-", starting with a letter or digit';
