import { describe, expect, it } from 'vitest'
import { LATE_EVENT_WINDOW_MS, listsAfter, LiveStreamWindow } from './liveStreamWindow.ts'

const T = 1_796_000_000_000
const e = (at: number, eventId: string) => ({ at, eventId })

describe("a live stream's window", () => {
  it('takes what lists at or before its start as seen, and sends what lists after it, in order', () => {
    const listed = [e(T - 2_000, 'a'), e(T, 'b'), e(T, 'c'), e(T + 5, 'd')]
    const w = new LiveStreamWindow(e(T, 'b'), listed)
    expect(w.unsent(listed)).toEqual([e(T, 'c'), e(T + 5, 'd')])
    expect(w.since).toBe(T - LATE_EVENT_WINDOW_MS)
  })

  it('sends an event written after the stream moved past its time, once, and keeps its position at the newest', () => {
    const w = new LiveStreamWindow(e(T, 'start'), [e(T, 'start')])
    w.sent(e(T + 9_000, 'credit'))
    expect(w.position).toEqual(e(T + 9_000, 'credit'))
    // A tick that started at T + 1 s writes its last event after the credit was sent.
    const late = e(T + 1_016, 'DeathCompleted')
    const listed = [e(T, 'start'), late, e(T + 9_000, 'credit')]
    expect(w.unsent(listed)).toEqual([late])
    w.sent(late)
    expect(w.unsent(listed)).toEqual([])
    expect(w.position).toEqual(e(T + 9_000, 'credit'))
  })

  it('does not send an event written further behind than the window, and forgets keys that left it', () => {
    const w = new LiveStreamWindow(e(T, 'start'), [])
    w.sent(e(T + LATE_EVENT_WINDOW_MS + 10, 'far'))
    expect(w.unsent([e(T + 5, 'old'), e(T + 10, 'edge')])).toEqual([e(T + 10, 'edge')])
  })

  it('resumes from the position a message carried: what came late before it is not sent again', () => {
    const listed = [e(T, 'a'), e(T + 1, 'late'), e(T + 9_000, 'b')]
    const resumed = new LiveStreamWindow(e(T + 9_000, 'b'), listed)
    expect(resumed.unsent(listed)).toEqual([])
  })

  it('orders positions by time, then by id', () => {
    expect(listsAfter(e(2, 'a'), e(1, 'z'))).toBe(true)
    expect(listsAfter(e(1, 'b'), e(1, 'a'))).toBe(true)
    expect(listsAfter(e(1, 'a'), e(1, 'a'))).toBe(false)
  })
})
