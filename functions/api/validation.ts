// zod validation for every request part; a failure is 400 VALIDATION_FAILED naming the field and rule.
import type { ValidationTargets } from 'hono'
import { validator } from 'hono/validator'
import type { z } from 'zod/v4'
import { ApiError } from './errors.ts'

type Target = 'param' | 'query' | 'header' | 'json'

export type ValidationIssue = { location: Target; path: string; rule: string; code: string }

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i

export function validationError(location: Target, issues: readonly z.core.$ZodIssue[]): ApiError {
  const list: ValidationIssue[] = issues.map((i) => ({
    location,
    path: i.path.length === 0 ? (location === 'json' ? 'body' : location) : i.path.map(String).join('.'),
    rule: i.message,
    code: i.code,
  }))
  const first = list[0] ?? { path: location, rule: 'is invalid' }
  const more = list.length > 1 ? ` (and ${list.length - 1} more)` : ''
  return new ApiError('VALIDATION_FAILED', `${first.path}: ${first.rule}${more}`, { issues: list })
}

/**
 * Hono validator middleware backed by a zod schema; handlers read the parsed value with
 * `c.req.valid(target)`. A JSON body must say it is JSON: without the header Hono would hand the
 * schema `{}`, and the caller would get a confusing "field required" instead of the real problem.
 */
export function validate<T extends Target, S extends z.ZodType>(target: T, schema: S) {
  return validator(target as keyof ValidationTargets, (value, c) => {
    if (target === 'json') {
      const mediaType = (c.req.header('content-type') ?? '').split(';')[0]?.trim() ?? ''
      if (!JSON_MEDIA_TYPE.test(mediaType)) {
        throw new ApiError('VALIDATION_FAILED', 'body: must be JSON with Content-Type: application/json', { issues: [] })
      }
    }
    const result = schema.safeParse(value)
    if (!result.success) throw validationError(target, result.error.issues)
    return result.data as z.output<S>
  })
}
