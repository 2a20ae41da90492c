// <ns>_getValidators: the active validator set as the node sees it; per network the set of the
// highest node up, one series per validator (label `validator` = address).
import type { ValidatorInfo, ValidatorView } from '../domain.js';
import { parseValidators, sameValidators } from './parse.js';
import { entityFamily, type NodeProbe, type ParseContext } from './types.js';
import { sharedValidators } from './validatorLists.js';

export type ValidatorsProbeData = { probe: 'validators'; value: ValidatorInfo[] };

/**
 * Each node's last validator list, by its prober's parse context: the next answer is read against
 * it (see parseValidators), which is cheaper while the set stays the same, as it nearly always does.
 */
const lastValidators = new WeakMap<ParseContext, ValidatorInfo[]>();

const perValidator = (name: string, help: string, value: (v: ValidatorView) => number | undefined) =>
  entityFamily<ValidatorView>({
    per: 'entity',
    name,
    help,
    label: 'validator',
    entities: (n) => n.validators?.list,
    id: (v) => v.address,
    value,
  });

export const validatorsProbe: NodeProbe<ValidatorsProbeData> = {
  target: 'node',
  request: { kind: 'rpc', method: 'getValidators' },
  parse(result, ctx) {
    const last = lastValidators.get(ctx);
    let value = parseValidators(result, ctx.budget.maxValidators, last);
    // A list other than the node's last: another node's equal list if there is one (validatorLists.ts).
    if (value !== last) value = sharedValidators(value);
    lastValidators.set(ctx, value);
    return { probe: 'validators', value };
  },
  apply: (node, d) => (sameValidators(node.validators, d.value) || (node.validators = d.value), false),
  clear: (node) => void (node.validators = undefined),
  metrics: [
    {
      per: 'node',
      name: 'ledger_node_validators',
      help: 'Number of validators this node reports.',
      value: (v) => v.validators?.length,
    },
    {
      per: 'network',
      name: 'ledger_validators_active',
      help: 'Size of the active validator set.',
      value: (n) => n.validators?.list.length,
    },
    {
      per: 'network',
      name: 'ledger_validators_stake_tokens',
      help: 'Total active stake, in tokens.',
      value: (n) => n.validators?.totalStakeTokens,
    },
    {
      per: 'network',
      name: 'ledger_fleet_validator_set_mismatch',
      help: 'Whether nodes up disagree on the validator set (1) or not (0).',
      value: (n) => n.validatorSetMismatch,
    },
    perValidator('ledger_validator_stake_tokens', 'Stake of an active validator, in tokens.', (v) => v.stakeTokens),
    perValidator('ledger_validator_weight', 'Weight of an active validator.', (v) => v.weight),
    perValidator('ledger_validator_agent_score', 'Agent score of an active validator.', (v) => v.agentScore),
  ],
};
