export { ArchiveError, extractTarGz } from './archive.js';
export type { ArchiveLimits } from './archive.js';
export { buildApi } from './server.js';
export type { ApiOptions } from './server.js';
export { openApiDocument } from './document.js';
