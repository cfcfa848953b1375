package disk

// relist is the share of the budget a process writes before it lists the
// directory again to learn what other processes wrote.
const relist = 64

// wrote notes n bytes written by Put, and trims the store (which lists
// its directory) when it may be over its budget: at the process's first
// write, when the bytes known plus those written since exceed the budget,
// and when the process has written budget/relist bytes since it last
// listed, to count what other processes wrote meanwhile.
func (s *Store) wrote(n int64) {
	s.mu.Lock()
	s.est += n
	s.since += n
	need := !s.listed || s.est > s.budget || s.since > s.budget/relist
	s.mu.Unlock()
	if need {
		s.Trim()
	}
}
