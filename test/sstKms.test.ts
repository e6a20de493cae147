// The tick's KMS access as the stack writes it (sst.config.ts run against the recording stand-ins): a
// fixed set of tag-conditioned statements and one short environment variable, whatever the number of
// Golems, and a policy simulation over the recorded statements: Sign is allowed on a key tagged for the
// stage and refused on one tagged for another stage, another role or not at all.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { rotationAlias, onboardingAlias, sessionKeyTags } from '../adapters/signers/kmsKeyNames.ts'
import { loadStackConfig } from '../stacks/config.ts'
import { effectiveStatements, installStandIns, simulate, type SimulatedRequest, type StandIns, type Statement } from '../stacks/testing.ts'
import { testDeployment } from './support/deployment.ts'

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`
const DEPLOYMENT = { ...testDeployment(), startBlock: 123_456 }
const ACCOUNT = '111122223333'
const STAGE = 'production'
const keyArn = (id: string, account = ACCOUNT) => `arn:aws:kms:us-east-1:${account}:key/${id}`
const aliasArn = (name: string) => `arn:aws:kms:us-east-1:${ACCOUNT}:${name}`
/** Lambda's limit on a function's environment variables, all names and values together. */
const LAMBDA_ENV_LIMIT = 4096

type SstConfig = { run(): Promise<Record<string, unknown>> }
type Stack = { standIns: StandIns; outputs: Record<string, unknown> }

async function runStack(): Promise<Stack> {
  const standIns = installStandIns({ stage: STAGE })
  const { default: config } = (await import('../sst.config.ts')) as unknown as { default: SstConfig }
  return { standIns, outputs: await config.run() }
}

let stack: Stack
const statementsOf = (s: Stack, name: string) => effectiveStatements(s.standIns, s.standIns.one('sst:aws:Function', name))
const tick = () => statementsOf(stack, 'Tick')
const api = () => statementsOf(stack, 'Api')
const kmsStatements = (st: Statement[]) => st.filter((s) => s.actions.some((a) => a.startsWith('kms:')))

/** The context IAM evaluates a request on a key with these tags in, made by a principal of ACCOUNT. */
function onKey(action: string, tags: Record<string, string>, o: { account?: string; keySpec?: string } = {}): SimulatedRequest {
  const account = o.account ?? ACCOUNT
  return {
    action,
    resource: keyArn('1234abcd-12ab-34cd-56ef-1234567890ab', account),
    context: {
      'aws:PrincipalAccount': ACCOUNT,
      'aws:ResourceAccount': account,
      'kms:KeySpec': o.keySpec ?? 'ECC_SECG_P256K1',
      ...Object.fromEntries(Object.entries(tags).map(([k, v]) => [`aws:ResourceTag/${k}`, v])),
    },
  }
}
const tagsOf = (stage: string, golemId: string) => Object.fromEntries(sessionKeyTags(stage, golemId).map((t) => [t.TagKey, t.TagValue]))

/** CreateKey (and the TagResource its Tags imply) as the rotation sends it. */
function creating(action: 'kms:CreateKey' | 'kms:TagResource', tags: Record<string, string>, keyUsage = 'SIGN_VERIFY'): SimulatedRequest {
  return {
    action,
    resource: action === 'kms:CreateKey' ? '*' : keyArn('new-key'),
    context: {
      'aws:PrincipalAccount': ACCOUNT,
      'kms:KeySpec': 'ECC_SECG_P256K1',
      'kms:KeyUsage': keyUsage,
      'aws:TagKeys': Object.keys(tags),
      ...Object.fromEntries(Object.entries(tags).map(([k, v]) => [`aws:RequestTag/${k}`, v])),
    },
  }
}

beforeAll(async () => {
  vi.stubEnv('BARDO_DEPLOYMENT', JSON.stringify(DEPLOYMENT))
  vi.stubEnv('BARDO_CHAIN_ID', '84532')
  stack = await runStack()
})
afterAll(() => {
  stack?.standIns.uninstall()
  vi.unstubAllEnvs()
})

describe('the tick does not grow with the number of Golems', () => {
  it('no deploy-time setting counts Golems or keys, and the pool setting is refused by name', () => {
    const config = loadStackConfig({ BARDO_DEPLOYMENT: JSON.stringify(DEPLOYMENT) }, STAGE)
    expect(Object.keys(config).filter((k) => /key|pool|golem/i.test(k))).toEqual([])
    expect(() => loadStackConfig({ BARDO_DEPLOYMENT: JSON.stringify(DEPLOYMENT), BARDO_KEY_POOL_SIZE: '35' }, STAGE)).toThrow(
      /^BARDO_KEY_POOL_SIZE: is no longer read/,
    )
  })

  it('creates no KMS key or alias at deploy time, and no statement names a key', () => {
    expect(stack.standIns.byType('aws:kms/key:Key')).toEqual([])
    expect(stack.standIns.byType('aws:kms/alias:Alias')).toEqual([])
    for (const st of kmsStatements(tick())) {
      for (const resource of st.resources) {
        // Any key of the account (which ones is the conditions'), '*' for CreateKey, or the stage's alias prefix.
        expect(['arn:aws:kms:*:*:key/*', '*', 'arn:aws:kms:*:*:alias/bardo-custody/production/*'], resource).toContain(resource)
      }
    }
  })

  it('the same statements, the same environment, far under 4 KB, for one Golem or 100,000 (two deploys compared)', async () => {
    const env = stack.standIns.one('sst:aws:Function', 'Tick').args.environment as Record<string, string>
    stack.standIns.uninstall()
    // A second deploy after any number of onboardings: nothing it reads has changed, so nothing differs.
    const again = await runStack()
    try {
      expect(statementsOf(again, 'Tick')).toEqual(tick())
      expect(again.standIns.one('sst:aws:Function', 'Tick').args.environment).toEqual(env)
    } finally {
      again.standIns.uninstall()
      stack = await runStack()
    }
    expect(Object.keys(env).filter((k) => k.includes('KMS'))).toEqual(['BARDO_KMS_ALIAS_PREFIX'])
    expect(Object.values(env).some((v) => v.includes(':key/'))).toBe(false)
    // Placeholders stand for names SST makes (a table name, a parameter): count each as 128 characters.
    const size = Object.entries(env).reduce((n, [k, v]) => n + k.length + v.replace(/\{\{[^}]+\}\}/g, 'x'.repeat(128)).length, 0)
    expect(size).toBeLessThan(LAMBDA_ENV_LIMIT / 2)
  })

  it('every KMS statement is conditioned on tags (or is the alias prefix), and one set of them serves every Golem', () => {
    const kms = kmsStatements(tick())
    expect(kms.map((s) => [...s.actions].sort())).toEqual([
      ['kms:GetPublicKey', 'kms:Sign'],
      ['kms:CreateKey'],
      ['kms:TagResource'],
      ['kms:CreateAlias'],
      ['kms:CreateAlias'],
    ])
    for (const st of kms) {
      if (st.resources.every((r) => r.includes(':alias/'))) continue
      const variables = (st.conditions ?? []).map((c) => c.variable)
      const tagged = variables.includes('aws:ResourceTag/bardo:stage') || variables.includes('aws:RequestTag/bardo:stage')
      expect(tagged, st.actions.join()).toBe(true)
      expect(
        variables.some((v) => v.endsWith('/bardo:role')),
        st.actions.join(),
      ).toBe(true)
    }
    expect(kms.find((s) => s.actions.includes('kms:Sign'))!.conditions).toEqual(
      expect.arrayContaining([
        { test: 'StringEquals', variable: 'aws:ResourceTag/bardo:stage', values: [STAGE] },
        { test: 'StringEquals', variable: 'aws:ResourceTag/bardo:role', values: ['session-key'] },
      ]),
    )
    for (const n of [1, 35, 36, 100_000])
      expect(simulate(tick(), onKey('kms:Sign', tagsOf(STAGE, `golem-${n}`))), `Golem ${n}`).toBe('allow')
  })
})

describe('a policy simulation over the recorded statements', () => {
  it("allows Sign and GetPublicKey on a key tagged for the stage's SessionKeys", () => {
    for (const action of ['kms:Sign', 'kms:GetPublicKey']) expect(simulate(tick(), onKey(action, tagsOf(STAGE, 'g-1')))).toBe('allow')
  })

  it("lets the API sign with the stage's SessionKeys (the action path) and nothing more: no key made, none of another stage", () => {
    for (const action of ['kms:Sign', 'kms:GetPublicKey']) expect(simulate(api(), onKey(action, tagsOf(STAGE, 'g-1')))).toBe('allow')
    expect(simulate(api(), onKey('kms:Sign', tagsOf('dev', 'g-1')))).toBe('deny')
    expect(simulate(api(), onKey('kms:Sign', { 'bardo:stage': STAGE, 'bardo:role': 'operator' }))).toBe('deny')
    for (const action of ['kms:CreateKey', 'kms:CreateAlias', 'kms:TagResource', 'kms:ScheduleKeyDeletion'])
      expect(simulate(api(), onKey(action, tagsOf(STAGE, 'g-1'))), action).toBe('deny')
  })

  it('refuses Sign on a key tagged for another stage, another role, untagged, in another account, or of another spec', () => {
    expect(simulate(tick(), onKey('kms:Sign', tagsOf('dev', 'g-1')))).toBe('deny')
    expect(simulate(tick(), onKey('kms:Sign', { 'bardo:stage': STAGE, 'bardo:role': 'operator' }))).toBe('deny')
    expect(simulate(tick(), onKey('kms:Sign', { 'bardo:stage': STAGE }))).toBe('deny')
    expect(simulate(tick(), onKey('kms:Sign', {}))).toBe('deny')
    expect(simulate(tick(), onKey('kms:Sign', tagsOf(STAGE, 'g-1'), { account: '444455556666' }))).toBe('deny')
    expect(simulate(tick(), onKey('kms:Sign', tagsOf(STAGE, 'g-1'), { keySpec: 'ECC_NIST_P256' }))).toBe('deny')
  })

  it('refuses what the tick never sends, even on its own keys: delete, untag, decrypt, re-point an alias', () => {
    for (const action of [
      'kms:ScheduleKeyDeletion',
      'kms:UntagResource',
      'kms:Decrypt',
      'kms:UpdateAlias',
      'kms:PutKeyPolicy',
      'kms:DisableKey',
    ])
      expect(simulate(tick(), onKey(action, tagsOf(STAGE, 'g-1'))), action).toBe('deny')
  })

  it("allows the rotation's CreateKey only with the stage's tags, the SessionKey tag keys, secp256k1 and SIGN_VERIFY", () => {
    const tags = tagsOf(STAGE, 'g-1')
    expect(simulate(tick(), creating('kms:CreateKey', tags))).toBe('allow')
    expect(simulate(tick(), creating('kms:TagResource', tags))).toBe('allow')
    expect(simulate(tick(), creating('kms:CreateKey', tagsOf('dev', 'g-1')))).toBe('deny')
    expect(simulate(tick(), creating('kms:TagResource', tagsOf('dev', 'g-1')))).toBe('deny')
    expect(simulate(tick(), creating('kms:CreateKey', { ...tags, 'bardo:role': 'admin' }))).toBe('deny')
    expect(simulate(tick(), creating('kms:CreateKey', { ...tags, owner: 'me' }))).toBe('deny')
    expect(simulate(tick(), creating('kms:TagResource', { ...tags, owner: 'me' }))).toBe('deny')
    expect(simulate(tick(), creating('kms:CreateKey', {}))).toBe('deny')
    expect(simulate(tick(), creating('kms:CreateKey', tags, 'ENCRYPT_DECRYPT'))).toBe('deny')
  })

  it("allows CreateAlias under the stage's prefix onto the stage's keys only", () => {
    const prefix = stack.outputs.sessionKeyAliasPrefix as string
    const alias = rotationAlias(prefix, 'g-1', addr(0xabc) as `0x${string}`)
    const onAlias = (name: string): SimulatedRequest => ({
      action: 'kms:CreateAlias',
      resource: aliasArn(name),
      context: { 'aws:PrincipalAccount': ACCOUNT },
    })
    expect(simulate(tick(), onAlias(alias))).toBe('allow')
    expect(simulate(tick(), onAlias(onboardingAlias(prefix, 'g-1')))).toBe('allow')
    expect(simulate(tick(), onAlias('alias/bardo-custody/dev/golem/g-1'))).toBe('deny')
    expect(simulate(tick(), onAlias('alias/other-app'))).toBe('deny')
    expect(simulate(tick(), onKey('kms:CreateAlias', tagsOf(STAGE, 'g-1')))).toBe('allow')
    expect(simulate(tick(), onKey('kms:CreateAlias', {}))).toBe('deny')
    expect(simulate(tick(), onKey('kms:CreateAlias', tagsOf('dev', 'g-1')))).toBe('deny')
  })

  it('the heartbeat and the walker hold no KMS permission at all (the API signs only: above)', () => {
    for (const name of ['Heartbeat', 'Walker']) {
      const statements = statementsOf(stack, name)
      expect(kmsStatements(statements), name).toEqual([])
      expect(simulate(statements, onKey('kms:Sign', tagsOf(STAGE, 'g-1'))), name).toBe('deny')
    }
  })
})
