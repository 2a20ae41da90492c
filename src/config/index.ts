// Configuration: YAML loading, validation with file positions, defaults and units.

export { parseDuration, formatDuration } from './duration.js';
export { parseByteSize } from './byteSize.js';
export { ConfigError, formatProblem, unreadableConfigLine, type ConfigProblem } from './problems.js';
export { parseConfig, parseConfigWithoutSecrets, readConfig, loadConfigFile, type ParseOptions } from './parse.js';
export { runCheckConfig } from './check.js';
// The whole schema (every deferred section loaded): parseConfig here reads any config.
export { rawConfigSchema } from './sections/all.js';
export type { RawConfig, RawConfigInput } from './sections/index.js';
export { generateSchemaJson } from './jsonSchema.js';
export { parseListenAddress, isLoopbackHost } from './rules.js';
export { expandString } from './envExpand.js';
export { secretsOf, nodeSecrets } from './secrets.js';
