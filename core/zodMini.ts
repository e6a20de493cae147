// zod's mini build (functions rather than methods) for the parsers a tick runs, so its Lambda bundle
// carries only the schemas it uses; with the English messages the full build sets, an invalid input's
// error names the field and the rule as before.
import { config } from 'zod/v4-mini'
import en from 'zod/v4/locales/en.js'

config(en())

export * from 'zod/v4-mini'
