// The `node` of evidence records about the agent platform: apart from the checker, so a daemon
// whose config has no agentPlatform names it without loading the platform's code.
export const AGENT_EVIDENCE_NODE = 'agent-platform';
