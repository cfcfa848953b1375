package vfs

// Value returns the value that key names in g, calling make the first
// time g is asked for it. It is where a package layered on the drivers
// keeps registrations of its own, so that a program's Registry
// (Options.Registry) scopes them with its schemes and formats: package
// array keeps its array formats there. Keys are comparable values of a
// type of the caller's package, as context keys are, so that packages
// never collide. make runs at most once per key, under the registry's
// lock: it must not call g. The value is shared by every user of g, and
// must be safe for concurrent use.
func (g *Registry) Value(key any, make func() any) any {
	g.mu.RLock()
	v, ok := g.values[key]
	g.mu.RUnlock()
	if ok {
		return v
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if v, ok := g.values[key]; ok {
		return v
	}
	if g.values == nil {
		g.values = map[any]any{}
	}
	v = make()
	g.values[key] = v
	return v
}
