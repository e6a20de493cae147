// The framework functions a tick, the custody policy and the council call, as the MetaMask Delegation
// Framework's ABIs (`@metamask/delegation-abis`) declare them: a tick bundling those whole ABIs for
// six functions carried about 26 KB of them. frameworkAbi.test.ts checks every entry against the package.

export const DelegationManagerAbi = [
  {
    type: 'function',
    name: 'redeemDelegations',
    inputs: [
      {
        name: '_permissionContexts',
        type: 'bytes[]',
        internalType: 'bytes[]',
      },
      {
        name: '_modes',
        type: 'bytes32[]',
        internalType: 'ModeCode[]',
      },
      {
        name: '_executionCallDatas',
        type: 'bytes[]',
        internalType: 'bytes[]',
      },
    ],
    outputs: [],
    stateMutability: 'nonpayable',
  },
  {
    type: 'function',
    name: 'disableDelegation',
    inputs: [
      {
        name: '_delegation',
        type: 'tuple',
        internalType: 'struct Delegation',
        components: [
          {
            name: 'delegate',
            type: 'address',
            internalType: 'address',
          },
          {
            name: 'delegator',
            type: 'address',
            internalType: 'address',
          },
          {
            name: 'authority',
            type: 'bytes32',
            internalType: 'bytes32',
          },
          {
            name: 'caveats',
            type: 'tuple[]',
            internalType: 'struct Caveat[]',
            components: [
              {
                name: 'enforcer',
                type: 'address',
                internalType: 'address',
              },
              {
                name: 'terms',
                type: 'bytes',
                internalType: 'bytes',
              },
              {
                name: 'args',
                type: 'bytes',
                internalType: 'bytes',
              },
            ],
          },
          {
            name: 'salt',
            type: 'uint256',
            internalType: 'uint256',
          },
          {
            name: 'signature',
            type: 'bytes',
            internalType: 'bytes',
          },
        ],
      },
    ],
    outputs: [],
    stateMutability: 'nonpayable',
  },
  {
    type: 'function',
    name: 'disabledDelegations',
    inputs: [
      {
        name: 'delegationHash',
        type: 'bytes32',
        internalType: 'bytes32',
      },
    ],
    outputs: [
      {
        name: 'isDisabled',
        type: 'bool',
        internalType: 'bool',
      },
    ],
    stateMutability: 'view',
  },
] as const

/** ERC20PeriodTransferEnforcer and NativeTokenPeriodTransferEnforcer share this read. */
export const PeriodTransferEnforcerAbi = [
  {
    type: 'function',
    name: 'getAvailableAmount',
    inputs: [
      {
        name: '_delegationHash',
        type: 'bytes32',
        internalType: 'bytes32',
      },
      {
        name: '_delegationManager',
        type: 'address',
        internalType: 'address',
      },
      {
        name: '_terms',
        type: 'bytes',
        internalType: 'bytes',
      },
    ],
    outputs: [
      {
        name: 'availableAmount_',
        type: 'uint256',
        internalType: 'uint256',
      },
      {
        name: 'isNewPeriod_',
        type: 'bool',
        internalType: 'bool',
      },
      {
        name: 'currentPeriod_',
        type: 'uint256',
        internalType: 'uint256',
      },
    ],
    stateMutability: 'view',
  },
] as const

/** The NonceEnforcer's read: the nonce every grant of a delegator must carry (one increment revokes them all). */
export const NonceEnforcerAbi = [
  {
    type: 'function',
    name: 'currentNonce',
    inputs: [
      {
        name: 'delegationManager',
        type: 'address',
        internalType: 'address',
      },
      {
        name: 'delegator',
        type: 'address',
        internalType: 'address',
      },
    ],
    outputs: [
      {
        name: 'nonce',
        type: 'uint256',
        internalType: 'uint256',
      },
    ],
    stateMutability: 'view',
  },
] as const

/**
 * The two events that revoke a grant: the owner's disableDelegation of a delegation in its chain, and the
 * owner's NonceEnforcer increment (MetaMask's "revoke all"), which emits the nonce it used up.
 */
export const RevocationEventsAbi = [
  {
    type: 'event',
    name: 'DisabledDelegation',
    inputs: [
      {
        name: 'delegationHash',
        type: 'bytes32',
        indexed: true,
        internalType: 'bytes32',
      },
      {
        name: 'delegator',
        type: 'address',
        indexed: true,
        internalType: 'address',
      },
      {
        name: 'delegate',
        type: 'address',
        indexed: true,
        internalType: 'address',
      },
      {
        name: 'delegation',
        type: 'tuple',
        indexed: false,
        internalType: 'struct Delegation',
        components: [
          {
            name: 'delegate',
            type: 'address',
            internalType: 'address',
          },
          {
            name: 'delegator',
            type: 'address',
            internalType: 'address',
          },
          {
            name: 'authority',
            type: 'bytes32',
            internalType: 'bytes32',
          },
          {
            name: 'caveats',
            type: 'tuple[]',
            internalType: 'struct Caveat[]',
            components: [
              {
                name: 'enforcer',
                type: 'address',
                internalType: 'address',
              },
              {
                name: 'terms',
                type: 'bytes',
                internalType: 'bytes',
              },
              {
                name: 'args',
                type: 'bytes',
                internalType: 'bytes',
              },
            ],
          },
          {
            name: 'salt',
            type: 'uint256',
            internalType: 'uint256',
          },
          {
            name: 'signature',
            type: 'bytes',
            internalType: 'bytes',
          },
        ],
      },
    ],
    anonymous: false,
  },
  {
    type: 'event',
    name: 'UsedNonce',
    inputs: [
      {
        name: 'delegationManager',
        type: 'address',
        indexed: true,
        internalType: 'address',
      },
      {
        name: 'delegator',
        type: 'address',
        indexed: true,
        internalType: 'address',
      },
      {
        name: 'nonce',
        type: 'uint256',
        indexed: false,
        internalType: 'uint256',
      },
    ],
    anonymous: false,
  },
] as const

/** A DeleGator's two execute overloads (one execution; a mode and its encoded executions). */
export const DeleGatorExecuteAbi = [
  {
    type: 'function',
    name: 'execute',
    inputs: [
      {
        name: '_execution',
        type: 'tuple',
        internalType: 'struct Execution',
        components: [
          {
            name: 'target',
            type: 'address',
            internalType: 'address',
          },
          {
            name: 'value',
            type: 'uint256',
            internalType: 'uint256',
          },
          {
            name: 'callData',
            type: 'bytes',
            internalType: 'bytes',
          },
        ],
      },
    ],
    outputs: [],
    stateMutability: 'payable',
  },
  {
    type: 'function',
    name: 'execute',
    inputs: [
      {
        name: '_mode',
        type: 'bytes32',
        internalType: 'ModeCode',
      },
      {
        name: '_executionCalldata',
        type: 'bytes',
        internalType: 'bytes',
      },
    ],
    outputs: [],
    stateMutability: 'payable',
  },
] as const

/** The MultiSig DeleGator's initializer (its signers and threshold) and its seat check. */
export const MultiSigDeleGatorAbi = [
  {
    type: 'function',
    name: 'initialize',
    inputs: [
      {
        name: '_signers',
        type: 'address[]',
        internalType: 'address[]',
      },
      {
        name: '_threshold',
        type: 'uint256',
        internalType: 'uint256',
      },
    ],
    outputs: [],
    stateMutability: 'nonpayable',
  },
  {
    type: 'function',
    name: 'isSigner',
    inputs: [
      {
        name: '_addr',
        type: 'address',
        internalType: 'address',
      },
    ],
    outputs: [
      {
        name: '',
        type: 'bool',
        internalType: 'bool',
      },
    ],
    stateMutability: 'view',
  },
] as const

/** The proxy a DeleGator is deployed behind: its constructor takes the implementation and the initializer call. */
export const ERC1967ProxyConstructorAbi = [
  {
    type: 'constructor',
    inputs: [
      {
        name: 'implementation',
        type: 'address',
        internalType: 'address',
      },
      {
        name: '_data',
        type: 'bytes',
        internalType: 'bytes',
      },
    ],
    stateMutability: 'payable',
  },
] as const

/** The SimpleFactory's CREATE2 deploy. */
export const SimpleFactoryAbi = [
  {
    type: 'function',
    name: 'deploy',
    inputs: [
      {
        name: '_bytecode',
        type: 'bytes',
        internalType: 'bytes',
      },
      {
        name: '_salt',
        type: 'bytes32',
        internalType: 'bytes32',
      },
    ],
    outputs: [
      {
        name: 'addr_',
        type: 'address',
        internalType: 'address',
      },
    ],
    stateMutability: 'nonpayable',
  },
] as const
