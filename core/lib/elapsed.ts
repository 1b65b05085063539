// Time since an instant this instance noted, on a clock that may step back (an NTP correction,
// a VM resumed): an instant "in the future" counts as long ago, so that a step back never
// stretches a freshness, a cooldown, a lease or a retry delay by its own length.

/** Milliseconds from `from` to `at`; infinite when the clock has stepped back past `from`. */
export const elapsedSince = (at: number, from: number) => (at < from ? Number.POSITIVE_INFINITY : at - from);
