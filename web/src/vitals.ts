// The vital signs on the page: the API's answer (core/lifecycle/vitalSigns.ts) read again at the page's
// clock, so the countdowns move between polls, in the console line's words (vitalSignsWords).
export { type StatedVitalSigns as ApiVitals, vitalSignsAt as vitalsAt } from '../../core/lifecycle/vitalSigns.ts'
