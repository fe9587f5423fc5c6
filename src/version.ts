import packageJson from '../package.json' with { type: 'json' };

/** The package version, from package.json (the bundles carry it inline). */
export const VERSION: string = packageJson.version;
