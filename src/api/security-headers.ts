/**
 * The headers every answer of `frontier serve` carries: the dashboard's Content-Security-Policy
 * (docs/dashboard.md says why each directive) and no MIME sniffing. Stored strings are escaped
 * where the pages make markup (web/src/lib/html.ts); the policy is the second line: were one not,
 * the browser would still run no script but the dashboard's own files.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  'img-src data:',
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  // A log or a JSON answer holding markup is never read as HTML or script.
  'x-content-type-options': 'nosniff',
};
