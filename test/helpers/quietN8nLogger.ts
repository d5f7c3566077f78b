// Node errors are part of what the tests assert; n8n's logger would print each one again. N8N_LOG_LEVEL=info shows them.
// A jest setup file, not a side effect of a helper: a script importing the helper would hand the level on to every
// n8n it spawns, and their logs would stay empty.
process.env.N8N_LOG_LEVEL ??= 'silent';

export {};
