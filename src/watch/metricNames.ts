// Names of the ledger_watch_* series (exporter contract, "Watching the operator's own
// validators, miners and accounts"), for the alert rules and dashboards that read them. Every
// series carries `name`, `network` and the address label of its kind.
// The three *_below / *_expected / *_min series export the entry's own settings, so the
// Prometheus rules compare against per-entry thresholds as the built-in engine does; each is
// present only when its setting is.

export const WATCH_ADDRESS_LABEL = { validator: 'validator', miner: 'miner', account: 'account' } as const;

export const WATCH_METRICS = {
  validatorActive: 'ledger_watch_validator_active',
  validatorRank: 'ledger_watch_validator_rank',
  validatorStake: 'ledger_watch_validator_stake_tokens',
  validatorWeight: 'ledger_watch_validator_weight',
  validatorAgentScore: 'ledger_watch_validator_agent_score',
  validatorCommission: 'ledger_watch_validator_commission_ratio',
  validatorJailed: 'ledger_watch_validator_jailed',
  validatorRewarded: 'ledger_watch_validator_rewarded',
  validatorEpochBlocks: 'ledger_watch_validator_epoch_blocks',
  validatorSeatMargin: 'ledger_watch_validator_seat_margin_ratio',
  minerRegistered: 'ledger_watch_miner_registered',
  minerActive: 'ledger_watch_miner_active',
  minerMisses: 'ledger_watch_miner_consecutive_misses',
  minerEpochsSinceCheckin: 'ledger_watch_miner_epochs_since_checkin',
  minerAttendance: 'ledger_watch_miner_attendance_epochs',
  minerMultiplier: 'ledger_watch_miner_reward_multiplier',
  minerReputation: 'ledger_watch_miner_reputation_ratio',
  minerPending: 'ledger_watch_miner_pending_rewards_tokens',
  accountBalance: 'ledger_watch_account_balance_tokens',
  accountUnbonding: 'ledger_watch_account_unbonding_tokens',
  accountNextRelease: 'ledger_watch_account_unbonding_next_release_blocks',
  lastSuccess: 'ledger_watch_last_success_timestamp_seconds',
  consecutiveFailures: 'ledger_watch_consecutive_failures',
  readFailures: 'ledger_watch_read_failures_total',
  // The entries' settings (see above).
  validatorSeatMarginBelow: 'ledger_watch_validator_seat_margin_below_ratio',
  validatorExpectedCommission: 'ledger_watch_validator_expected_commission_ratio',
  accountMinBalance: 'ledger_watch_account_min_balance_tokens',
  // Delegators (label validator) and agents (label dimension on the score).
  delegationTokens: 'ledger_watch_delegation_tokens',
  delegationCommission: 'ledger_watch_delegation_commission_ratio',
  delegationActive: 'ledger_watch_delegation_validator_active',
  delegationRewarded: 'ledger_watch_delegation_validator_rewarded',
  delegatorMaxCommission: 'ledger_watch_delegator_max_commission_ratio',
  agentRegistered: 'ledger_watch_agent_registered',
  agentScore: 'ledger_watch_agent_score_ratio',
  agentDecay: 'ledger_watch_agent_decay_ratio',
  agentAttestations: 'ledger_watch_agent_attestations',
  agentAttestationScoreSum: 'ledger_watch_agent_attestation_score_sum',
  agentMinScore: 'ledger_watch_agent_min_score_ratio',
} as const;
