package progress

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
)

// A Mode is how a Progress shows the count.
type Mode int

const (
	Off    Mode = iota // nothing
	Bar                // a bar with bytes, rate and ETA, for a terminal
	Counts             // "\rN / TOTAL bytes (P%)" lines, for a log
)

// Timing of the progress display.
const (
	// BarDelay is how long a copy runs before a bar appears unasked: a
	// copy shorter than that shows nothing.
	BarDelay = time.Second
	// barInterval is how often the bar is redrawn.
	barInterval = 100 * time.Millisecond
	// countsInterval is how often -P off a terminal writes its count.
	countsInterval = 200 * time.Millisecond
)

// barWidth is the width of the bar itself, in columns.
const barWidth = 30

// A Progress counts the bytes a copy writes (it is an io.Writer that
// discards them) and shows the count: a bar, redrawn in place, or a count
// line. Messages written through Lines print on lines of their own: the
// bar is cleared, the message written and the bar drawn again below it.
// End leaves the line clean. Its methods are safe for concurrent use.
type Progress struct {
	w     io.Writer // standard error
	mode  Mode
	delay time.Duration // before the bar first shows
	start time.Time

	total atomic.Int64 // bytes to copy; -1 when not known
	done  atomic.Int64 // bytes copied

	mu      sync.Mutex
	bar     *progressbar.ProgressBar // in Bar mode
	drawn   bool                     // the bar or a count line is on screen
	ended   bool
	partial []byte // the part of a message after its last newline

	stop chan struct{}
	wg   sync.WaitGroup
}

// New starts showing on w, in mode, the progress of a copy of total bytes
// (-1 when not known). A bar shows after delay. The caller must call End.
func New(w io.Writer, mode Mode, total int64, delay time.Duration) *Progress {
	p := &Progress{w: w, mode: mode, delay: delay, start: time.Now(), stop: make(chan struct{})}
	p.total.Store(total)
	if mode == Off {
		return p
	}
	if mode == Bar {
		// Made now, not when first drawn, so that its rate and time
		// left count from the start of the copy.
		p.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionShowBytes(true),
			progressbar.OptionShowCount(),
			progressbar.OptionUseIECUnits(true),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionShowElapsedTimeOnFinish(),
			// Narrower than the terminal (the bar shrinks to fit a
			// narrow one), so that the "^C" a terminal echoes stays on
			// the bar's line, which End clears.
			progressbar.OptionSetWidth(barWidth),
			progressbar.OptionUseANSICodes(true),
			// Redrawn by the ticker only: the bar's own spinner
			// goroutine would write outside p.mu.
			progressbar.OptionSetSpinnerChangeInterval(0),
		)
		p.bar.StartWithoutRender()
	}
	interval := barInterval
	if mode == Counts {
		interval = countsInterval
	}
	p.wg.Go(func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.mu.Lock()
				if !p.ended && time.Since(p.start) >= p.delay {
					p.draw()
				}
				p.mu.Unlock()
			case <-p.stop:
				return
			}
		}
	})
	return p
}

// Write counts len(b) bytes as copied.
func (p *Progress) Write(b []byte) (int, error) {
	p.done.Add(int64(len(b)))
	return len(b), nil
}

// Add counts n more bytes as copied; n may be negative, for bytes that
// will be copied again.
func (p *Progress) Add(n int64) { p.done.Add(n) }

// SetTotal changes the number of bytes to copy, once it is known.
func (p *Progress) SetTotal(n int64) { p.total.Store(n) }

// draw shows the count; p.mu is held.
func (p *Progress) draw() {
	done, total := p.done.Load(), p.total.Load()
	switch p.mode {
	case Counts:
		pct := int64(100)
		if total > 0 {
			pct = min(done*100/total, 100)
		}
		if total < 0 {
			fmt.Fprintf(p.w, "\r%d bytes", done)
		} else {
			fmt.Fprintf(p.w, "\r%d / %d bytes (%d%%)", done, total, pct)
		}
		p.drawn = true
	case Bar:
		if total == 0 {
			return // nothing to show; the bar needs a maximum
		}
		if total >= 0 && p.bar.GetMax64() != total {
			p.bar.ChangeMax64(total)
		}
		// The bar refuses counts past its maximum (a source longer than
		// it said); it keeps showing the maximum.
		if total < 0 || done <= total {
			p.bar.Set64(done)
		}
		p.drawn = true
	}
}

// clearLine removes the bar or count line from the screen; p.mu is held.
func (p *Progress) clearLine() {
	if !p.drawn {
		return
	}
	switch p.mode {
	case Bar:
		io.WriteString(p.w, "\r\x1b[2K")
	case Counts:
		io.WriteString(p.w, "\n")
	}
	p.drawn = false
}

// redraw draws the bar again after a message; p.mu is held.
func (p *Progress) redraw() {
	if p.ended || p.bar == nil {
		return
	}
	io.WriteString(p.w, p.bar.String())
	p.drawn = true
}

// Lines returns a writer for messages (-v lines, errors): each complete
// line is printed on its own line, above the bar.
func (p *Progress) Lines() io.Writer {
	if p.mode == Off {
		return p.w
	}
	return linesWriter{p}
}

type linesWriter struct{ p *Progress }

func (l linesWriter) Write(b []byte) (int, error) {
	p := l.p
	p.mu.Lock()
	defer p.mu.Unlock()
	i := bytes.LastIndexByte(b, '\n')
	if i < 0 {
		p.partial = append(p.partial, b...)
		return len(b), nil
	}
	wasDrawn := p.drawn
	p.clearLine()
	msg := append(p.partial, b[:i+1]...)
	p.partial = append([]byte(nil), b[i+1:]...)
	if _, err := p.w.Write(msg); err != nil {
		return 0, err
	}
	if wasDrawn && p.mode == Bar {
		p.redraw()
	}
	return len(b), nil
}

// End stops the display. After a copy that succeeded (ok), a bar that was
// shown is drawn full and ended with a newline, and a count line shows the
// final count; after a failure or an interrupt, the bar is cleared so that
// the message that follows starts on a clean line.
func (p *Progress) End(ok bool) {
	if p.mode == Off {
		return
	}
	close(p.stop)
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	p.ended = true
	shown := p.drawn
	if len(p.partial) > 0 {
		p.clearLine()
		p.w.Write(append(p.partial, '\n'))
		p.partial = nil
	}
	switch p.mode {
	case Counts:
		p.draw()
		io.WriteString(p.w, "\n")
	case Bar:
		switch {
		case !shown:
			// The copy ended before the bar showed.
		case !ok:
			p.drawn = true
			p.clearLine()
		default:
			if p.total.Load() < 0 {
				p.total.Store(p.done.Load())
			}
			p.draw()
			p.bar.Finish()
			io.WriteString(p.w, "\n")
		}
	}
	p.drawn = false
}
