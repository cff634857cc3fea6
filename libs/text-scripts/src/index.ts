export { NO_SPACE_SCRIPT_RANGES, hasNoSpaceScript, scriptBigrams, scriptBigramsFunctionSql } from './no-space-scripts';
