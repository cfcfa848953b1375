package vfs

import (
	"reflect"
	"slices"

	"github.com/pipefs/pipefs/vfs/driver"
)

// StageCounts are the counts of one stage of a pipeline.
type StageCounts struct {
	Index  int    // 0-based index of the sub-URL
	URL    string // canonical text of the sub-URL
	Counts driver.Counts
}

// stageRef remembers what a stage yielded, for its counts.
type stageRef struct {
	index int
	url   string
	loc   driver.Location
	about stageAbout // what Stages reports (stage.go)
}

func (r *resources) stage(i int, p Pipeline, loc driver.Location) {
	r.mu.Lock()
	r.stages = append(r.stages, stageRef{i, p[i].String(), loc, r.about(i, p[i])})
	r.lap()
	r.mu.Unlock()
}

// counts returns the counts of every stage that keeps them.
func (r *resources) counts() []StageCounts {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []StageCounts
	for _, s := range r.stages {
		for _, v := range []any{s.loc.Tree, s.loc.Blob} {
			if c, ok := v.(driver.Counter); ok && v != nil {
				out = append(out, StageCounts{s.index, s.url, c.Stats()})
			}
		}
	}
	return out
}

// Stats returns what each stage of the FS's pipeline has cost so far, for
// the stages that count (the roots: a remote root counts its requests and
// bytes fetched, file: and memory: their read calls and bytes read):
// requests, bytes fetched, cache hits and misses. Sub and WithContext copies share the counts.
func (f *FS) Stats() []StageCounts { return f.res.counts() }

// Stats returns what each stage of the file's pipeline has cost so far, for
// a file from Open or OpenFile; a file opened from an FS reports through
// the FS.
func (f *File) Stats() []StageCounts { return f.res.counts() }

// As sets target to a driver value of the pipeline, as errors.As does for
// errors: each stage's tree or blob, innermost first, is asked through an
// optional As(any) bool method (an archive reaches its *zip.Reader, a
// remote root its SDK client), and a tree or blob that is itself assignable
// to target is taken; then, innermost first, the blobs opened from the
// stages' trees for the stages after them (the object a remote root's tree
// opened for "https://h/a.zip|zip:", which a driver.Revalidator asks
// about); last, for a pipeline opened relative to an FS (FS.OpenFS), the
// blob that its first adapter read, opened from that FS's tree (the
// object that "https://h/d/a.zip" names in a remote directory, or a
// member of an archive). It reports whether one matched.
func (f *FS) As(target any) bool { return f.res.as(f.tree, target) }

// As is FS.As for the pipeline of a file from Open or OpenFile; for a file
// opened from an FS it asks only the file's blob.
func (f *File) As(target any) bool { return f.res.as(f.blob, target) }

func (r *resources) as(first any, target any) bool {
	if asOne(first, target) {
		return true
	}
	if r == nil {
		return false
	}
	r.mu.Lock()
	stages, head := slices.Clone(r.stages), r.head
	r.mu.Unlock()
	for i := len(stages) - 1; i >= 0; i-- {
		for _, v := range []any{stages[i].loc.Tree, stages[i].loc.Blob} {
			if asOne(v, target) {
				return true
			}
		}
	}
	for i := len(stages) - 1; i >= 0; i-- {
		if asOne(stages[i].about.blob, target) {
			return true
		}
	}
	return asOne(head, target)
}

func asOne(v, target any) bool {
	if v == nil || target == nil {
		return false
	}
	if a, ok := v.(interface{ As(any) bool }); ok && a.As(target) {
		return true
	}
	t := reflect.ValueOf(target)
	if t.Kind() != reflect.Pointer || t.IsNil() {
		return false
	}
	if vv := reflect.ValueOf(v); vv.Type().AssignableTo(t.Elem().Type()) {
		t.Elem().Set(vv)
		return true
	}
	return false
}
