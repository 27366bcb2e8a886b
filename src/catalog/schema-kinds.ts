export const SCHEMA_KINDS = ['master-config', 'runners'] as const;
export type SchemaKind = (typeof SCHEMA_KINDS)[number];
