package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/internal/daemon"
	"github.com/pipefs/pipefs/internal/fusefs"
	"github.com/pipefs/pipefs/vfs"
)

func newMountCmd(g *globals) *cobra.Command {
	var background bool
	cmd := &cobra.Command{
		Use:   "mount URL DIR",
		Short: "Mount a directory location read-only with FUSE",
		Long: `mount mounts the directory location that URL names on the directory DIR,
read-only, with FUSE, so that any program can list and read it; a
container file is mounted as the directory it holds, and a compressed
file of no container as a folder that holds its decompressed file. DIR must be an
existing directory; what it holds is hidden while the mount lasts (a
warning says so). Nothing is
extracted: members are read in place when they are read, a remote
archive with range requests. Symbolic links in tar and zip archives are
links in the mount.

mount stays in the foreground, unless --daemon puts it in the
background: then it returns once DIR is mounted (or with the error that
stopped it), so that the next command of a script can read DIR at once,
as sshfs and rclone mount --daemon do; unmount it with fusermount3 -u DIR.
Once the mount is up it prints

  mounted PIPELINE on DIR; unmount with Ctrl-C or fusermount3 -u DIR

(with --daemon: "unmount with fusermount3 -u DIR")

and on SIGINT or SIGTERM it unmounts DIR and exits with status 0. A
mount that is busy (a shell's working directory, a file held open) is
tried again for a second, then detached (fusermount3 -u -z): DIR is free
at once, and the files still open are served until they are closed. It
exits with status 0 too when DIR is unmounted from outside.

A read that fails is logged on stderr once for each file, with its
pipeline, and the program that read gets an errno: ENOENT for a missing
name, EACCES for a refused one, EIO for corrupt data or a limit, EROFS
for any change. Linux with FUSE (fusermount3, from fuse3) is needed.`,
		Annotations: map[string]string{stopsOnSignal: "yes"},
		Example: `  pipefs mount testdata/demo.zip /tmp/demo      # once: mkdir /tmp/demo
  pipefs mount --daemon 'file:/data/a.zip|zip:docs/' /mnt/docs
  ls -lR /mnt/docs; fusermount3 -u /mnt/docs
  pipefs mount 'https://example.com/data.tar.gz' /mnt/data`,
		Args:              args(cobra.ExactArgs(2)),
		ValidArgsFunction: g.completeURLs(1, true),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			dir, err := filepath.Abs(args[1])
			if err != nil {
				return err
			}
			// Before anything is opened, which may cost requests.
			if info, err := os.Stat(dir); err != nil {
				return fmt.Errorf("mount point: %w (make it with mkdir first)", err)
			} else if !info.IsDir() {
				return fmt.Errorf("mount point %s: %w", dir, vfs.ErrNotDir)
			}
			if f, err := os.Open(dir); err == nil {
				names, _ := f.Readdirnames(1)
				f.Close()
				if len(names) > 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "pipefs: warning: %s is not empty: what it holds is hidden while the mount lasts\n", dir)
				}
			}
			if background {
				err := daemon.Start(ctx, os.Args[1:], cmd.OutOrStdout(), cmd.ErrOrStderr())
				if errors.Is(err, daemon.ErrExited) {
					return reportedError{} // its error is on stderr
				}
				return err
			}
			root, err := g.openDir(ctx, "mount", args[0])
			if err != nil {
				return err
			}
			defer root.Close()
			logger := log.New(cmd.ErrOrStderr(), "pipefs: ", log.LstdFlags)
			// The mount's reads go on after a signal, for the files
			// that a detached mount still serves.
			fsys := root.WithContext(context.WithoutCancel(ctx))
			srv, err := fusefs.Mount(dir, fsys, &fusefs.Options{
				Log: func(url string, err error) { logger.Printf("%s: %s", url, message(err)) },
			})
			if err != nil {
				return err
			}
			w, inBackground, ready := daemon.ReadyWriter(cmd.OutOrStdout())
			how := "Ctrl-C or fusermount3 -u " + dir
			if inBackground {
				how = "fusermount3 -u " + dir
			}
			fmt.Fprintf(w, "mounted %s on %s; unmount with %s\n", root.Pipeline(), dir, how)
			if o, ok := w.(*output); ok {
				o.Flush()
			}
			ready()
			select {
			case <-srv.Done():
				logger.Printf("%s was unmounted", dir)
				return nil
			case <-ctx.Done():
			}
			detached, err := srv.Unmount()
			if err != nil {
				// Exiting would leave a mount without a server: serve
				// on until it is unmounted by hand.
				logger.Printf("%s; still serving %s until it is unmounted (fusermount3 -u -z %s); signal again to quit", message(err), dir, dir)
				srv.Wait()
				return nil
			}
			if detached {
				logger.Printf("%s is busy: detached it; serving the files still open until they are closed (signal again to quit)", dir)
				srv.Wait()
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&background, "daemon", false, "return once DIR is mounted, leaving the mount in the background (unmount with fusermount3 -u DIR)")
	return cmd
}
