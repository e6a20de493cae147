// A failed check of a request part is 400 VALIDATION_FAILED naming the field and the rule: the routes'
// validators (openapi.ts validationHook) and the middleware that checks headers itself answer alike.
import type { z } from 'zod'
import { ApiError } from './errors.ts'

type Target = 'param' | 'query' | 'header' | 'json'

export type ValidationIssue = { location: Target; path: string; rule: string; code: string }

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
