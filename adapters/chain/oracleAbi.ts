// The oracle functions and event a tick calls, as the generated artifacts declare them (internalType left
// out: nothing a tick encodes or decodes reads it). A tick bundling the oracles' whole ABIs for these
// carried about 6 KB of them; oracleAbi.test.ts checks every entry against the artifacts.

export const VitalityOracleTickAbi = [
  {
    inputs: [{ name: 'golem', type: 'address' }],
    name: 'getState',
    outputs: [
      {
        components: [
          { name: 'phase', type: 'uint8' },
          { name: 'registered', type: 'bool' },
          { name: 'dead', type: 'bool' },
          { name: 'survivalScore', type: 'uint16' },
          { name: 'lastUpdated', type: 'uint64' },
          { name: 'registeredAt', type: 'uint64' },
        ],
        name: '',
        type: 'tuple',
      },
    ],
    stateMutability: 'view',
    type: 'function',
  },
  { inputs: [], name: 'owner', outputs: [{ name: '', type: 'address' }], stateMutability: 'view', type: 'function' },
  {
    inputs: [
      { name: 'newPhase', type: 'uint8' },
      { name: 'survivalScore', type: 'uint16' },
    ],
    name: 'updatePhase',
    outputs: [],
    stateMutability: 'nonpayable',
    type: 'function',
  },
  {
    inputs: [
      { name: 'golem', type: 'address' },
      { name: 'newPhase', type: 'uint8' },
      { name: 'reason', type: 'string' },
    ],
    name: 'resetPhase',
    outputs: [],
    stateMutability: 'nonpayable',
    type: 'function',
  },
  {
    inputs: [
      { name: 'from', type: 'address' },
      { name: 'to', type: 'address' },
    ],
    name: 'rotateGolemKey',
    outputs: [],
    stateMutability: 'nonpayable',
    type: 'function',
  },
  { inputs: [{ name: 'golem', type: 'address' }], name: 'deregisterGolem', outputs: [], stateMutability: 'nonpayable', type: 'function' },
  {
    anonymous: false,
    inputs: [
      { indexed: true, name: 'golem', type: 'address' },
      { indexed: false, name: 'fromPhase', type: 'uint8' },
      { indexed: false, name: 'toPhase', type: 'uint8' },
      { indexed: false, name: 'survivalScore', type: 'uint16' },
    ],
    name: 'PhaseTransition',
    type: 'event',
  },
  {
    anonymous: false,
    inputs: [
      { indexed: true, name: 'golem', type: 'address' },
      { indexed: false, name: 'fromPhase', type: 'uint8' },
      { indexed: false, name: 'toPhase', type: 'uint8' },
      { indexed: true, name: 'by', type: 'address' },
      { indexed: false, name: 'reason', type: 'string' },
    ],
    name: 'PhaseReset',
    type: 'event',
  },
] as const
export const DreamOracleTickAbi = [
  {
    inputs: [{ name: 'golem', type: 'address' }],
    name: 'isDreaming',
    outputs: [{ name: '', type: 'bool' }],
    stateMutability: 'view',
    type: 'function',
  },
] as const
export const PolicyCageTickAbi = [
  {
    inputs: [
      { name: 'from', type: 'address' },
      { name: 'to', type: 'address' },
    ],
    name: 'carryConstitution',
    outputs: [],
    stateMutability: 'nonpayable',
    type: 'function',
  },
] as const
