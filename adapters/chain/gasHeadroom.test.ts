// The gas limit a transaction is sent with: 30 % over the estimate, in integer math; and, on anvil, the
// case it is for. PolicyCage.setConstitution stamps block.timestamp beside the hash: restamping the
// second of the previous set is a no-op write, a new second is not. The node's estimate is exact, so an
// estimate made in the second of the previous set runs out of gas when mined in a later second, and the
// same estimate with headroom does not. The chain's seconds are set (evm_setNextBlockTimestamp), never
// read from the wall clock.
import { createTestClient, encodeFunctionData, http, keccak256, stringToHex, type Address, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PolicyCageAbi, PolicyCageBytecode, VitalityOracleAbi, VitalityOracleBytecode } from '../../contracts/artifacts/index.ts'
import { startAnvil, type Anvil } from '../../local/anvil.ts'
import { devnetClients, type DevnetClients } from '../../local/devnet.ts'
import { estimateContractGasWithHeadroom, estimateGasWithHeadroom, withGasHeadroom } from './gasHeadroom.ts'

describe('withGasHeadroom', () => {
  it('adds 30 % to the estimate', () => {
    expect(withGasHeadroom(21_000n)).toBe(27_300n)
    expect(withGasHeadroom(40_283n * 10n)).toBe(523_679n)
    expect(withGasHeadroom(1_000_000n)).toBe(1_300_000n)
  })

  it('rounds down to a whole unit of gas, in integer math', () => {
    expect(withGasHeadroom(40_283n)).toBe(52_367n) // 52,367.9
    expect(withGasHeadroom(7n)).toBe(9n) // 9.1
    expect(withGasHeadroom(1n)).toBe(1n) // 1.3
    expect(withGasHeadroom(0n)).toBe(0n)
    // Past 2^53, where a float multiplication would lose units.
    expect(withGasHeadroom(2n ** 60n + 3n)).toBe(((2n ** 60n + 3n) * 13n) / 10n)
  })

  it('covers the 2,731 gas a new second added to a setConstitution estimated at 40,283 in the same second', () => {
    expect(withGasHeadroom(40_283n)).toBeGreaterThanOrEqual(43_014n)
  })
})

describe('a timestamp-stamping write, estimated in the second of the previous write and mined in a later one', () => {
  let anvil: Anvil
  let clients: DevnetClients
  let cage: Address
  const golem: Address = '0x00000000000000000000000000000000000000a1'
  const hash = (label: string): Hex => keccak256(stringToHex(label))

  const mined = async (tx: Hex | Promise<Hex>) => clients.publicClient.waitForTransactionReceipt({ hash: await tx })
  const setCall = (label: string) =>
    ({ address: cage, abi: PolicyCageAbi, functionName: 'setConstitution', args: [golem, hash(label)] }) as const
  const readCage = () =>
    clients.publicClient.readContract({ address: cage, abi: PolicyCageAbi, functionName: 'getConstitution', args: [golem] })

  beforeAll(async () => {
    anvil = await startAnvil()
    clients = devnetClients(anvil.rpcUrl, anvil.chainId)
    const { operator } = clients
    const oracle = (
      await mined(operator.deployContract({ abi: VitalityOracleAbi, bytecode: VitalityOracleBytecode, args: [operator.account.address] }))
    ).contractAddress!
    cage = (await mined(operator.deployContract({ abi: PolicyCageAbi, bytecode: PolicyCageBytecode, args: [oracle] }))).contractAddress!
    await mined(operator.writeContract({ address: oracle, abi: VitalityOracleAbi, functionName: 'registerGolem', args: [golem] }))
  })
  afterAll(async () => anvil?.stop())

  it('runs out of gas with the bare estimate and is mined with the estimate plus headroom', async () => {
    const { publicClient, operator } = clients
    const testClient = createTestClient({ mode: 'anvil', chain: clients.chain, transport: http(anvil.rpcUrl) })
    const t0 = (await publicClient.getBlock()).timestamp + 100n
    await testClient.setNextBlockTimestamp({ timestamp: t0 })
    const previous = await mined(operator.writeContract({ ...setCall('first'), gas: 200_000n }))
    expect((await publicClient.getBlock({ blockNumber: previous.blockNumber })).timestamp).toBe(t0)
    // Estimated on the previous set's block, in its second: restamping t0 is a no-op write.
    const estimate = await publicClient.estimateContractGas({
      ...setCall('second'),
      account: operator.account,
      blockNumber: previous.blockNumber,
    })
    const before = await testClient.snapshot()

    // Mined a second later with the bare estimate: the new stamp is a full write, and the gas runs out.
    await testClient.setNextBlockTimestamp({ timestamp: t0 + 1n })
    const bare = await mined(operator.writeContract({ ...setCall('second'), gas: estimate }))
    expect(bare.status).toBe('reverted')
    expect(bare.gasUsed).toBe(estimate)
    expect(await readCage()).toEqual([hash('first'), t0])

    // The same transaction on the same state in the same second, with headroom: mined, needing more than the estimate.
    await testClient.revert({ id: before })
    await testClient.setNextBlockTimestamp({ timestamp: t0 + 1n })
    const padded = await mined(operator.writeContract({ ...setCall('second'), gas: withGasHeadroom(estimate) }))
    expect(padded.status).toBe('success')
    expect(padded.gasUsed).toBeGreaterThan(estimate)
    expect(await readCage()).toEqual([hash('second'), t0 + 1n])
  })

  it("estimateGasWithHeadroom is the node's estimate for the next block, with headroom", async () => {
    const { publicClient, operator } = clients
    const testClient = createTestClient({ mode: 'anvil', chain: clients.chain, transport: http(anvil.rpcUrl) })
    await testClient.setNextBlockTimestamp({ timestamp: (await publicClient.getBlock()).timestamp + 5n })
    const call = { to: cage, data: encodeFunctionData(setCall('third')) }
    const exact = await publicClient.estimateGas({ ...call, account: operator.account.address })
    expect(await estimateGasWithHeadroom(operator, call)).toBe(withGasHeadroom(exact))
    expect(await estimateGasWithHeadroom(publicClient, { ...call, account: operator.account.address })).toBe(withGasHeadroom(exact))
    expect(await estimateContractGasWithHeadroom(operator, setCall('third'))).toBe(withGasHeadroom(exact))
  })
})
