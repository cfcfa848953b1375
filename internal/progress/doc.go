// Package progress shows how far a copy has come: a bar redrawn in place
// on a terminal, with bytes copied and to copy, rate and time left, or,
// for a log, a line with the byte count a few times a second.
//
// A [Progress] is an io.Writer that counts what is written to it and
// discards it: a copy writes its bytes to the destination and to the
// Progress at once (io.MultiWriter). Messages printed while the bar shows
// (a verbose line, an error) go through [Progress.Lines], which clears the
// bar, prints the message on a line of its own and draws the bar again
// below it. [Progress.End] stops the display and leaves the line clean:
// after a copy that succeeded a bar that was shown ends full on a line of
// its own; after a failure or an interrupt it is cleared.
//
// A Progress is safe for concurrent use: several copies may count into
// one. Only its own goroutine, started by [New] and stopped by End,
// draws.
package progress
