// The version, put in by the bundler from package.json (a dev build from source says 0.0.0-dev).
declare const __REP_VERSION__: string;
export const VERSION = typeof __REP_VERSION__ === 'string' ? __REP_VERSION__ : '0.0.0-dev';
