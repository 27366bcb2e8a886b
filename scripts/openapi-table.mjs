/** The endpoints of an OpenAPI document as the markdown table docs/api.md carries. */
export function endpointsTable(document) {
  const rows = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const parameters = operation.parameters.map((p) => `\`${p.name}\`${p.required ? ' (required)' : ''}`).join(', ');
      rows.push(`| \`${method.toUpperCase()} ${path}\` | ${operation.summary} | ${parameters || '—'} |`);
    }
  }
  return ['| endpoint | what | parameters |', '| --- | --- | --- |', ...rows].join('\n');
}
