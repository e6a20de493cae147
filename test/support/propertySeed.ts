// Every property test in a run draws from one seed, so a run is repeatable: the same inputs on every
// machine and every CI run. A failure prints its seed and path; set BARDO_PROPERTY_SEED to replay it or
// to explore other inputs locally.
import fc from 'fast-check'

const seed = Number(process.env.BARDO_PROPERTY_SEED ?? 20_261_124)
if (!Number.isSafeInteger(seed)) throw new Error(`BARDO_PROPERTY_SEED: must be an integer, got ${process.env.BARDO_PROPERTY_SEED}`)
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed })
