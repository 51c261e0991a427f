export { ON_AGENT_LOSS, type AgentMember, type AgentsRecord, type OnAgentLoss } from '../result/agents-record.js';
