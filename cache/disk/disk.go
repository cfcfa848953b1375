// Package disk is the persistent store of derived indexes that pipefs
// keeps across processes: tar member tables, gzip checkpoints with their
// windows, zstd frame tables. A second process that opens an archive
// another process has indexed loads the index from the store instead of
// reading and decoding the archive again.
//
// A program chooses the store with vfs.Options.Disk; without one, indexes
// live in memory only. The library opens no store of its own and reads no
// environment: the pipefs command opens one in [DefaultDir], or in the
// directory that its --cache-dir flag or $PIPEFS_CACHE_DIR names ("off"
// for none), and passes it in its options. Drivers reach it
// through vfs.Env.DiskIndex, which keys an index by the driver's kind
// (scheme, encoding version, settings) and the input's vfs.Env.Key: its
// canonical pipeline and the version of the object it is read from (ETag,
// generation, or a local file's size, times, device and inode). Objects
// of a store that are never rewritten (Icechunk snapshots and manifests,
// OCDBT nodes) are kept through vfs.Env.DiskObject, keyed by the store's
// pipeline and the object's name, with no version.
//
// # Contract
//
// A [Store] is a directory of files, one per key, each named by the
// SHA-256 of its key. Entries are written whole to a temporary file in the
// same directory and renamed into place, so a reader sees a whole file or
// none, whatever other processes do at the same time. Every file starts
// with a header (magic, format version, lengths) and ends with a CRC-32C
// of everything before it; a file that fails any check (torn by a crash,
// truncated, damaged, or of another format version) is a miss and is
// removed. The key is stored in the file and compared on load, so a hash
// collision is a miss too.
//
// The store is bounded in bytes: after a write takes it over its budget,
// the least recently used files (by modification time, which a load
// refreshes) are removed until it is at 90% of the budget. Several
// processes may share one directory; each keeps the bound as it writes.
// A process lists the directory at its first write, then counts the bytes
// it writes and lists again only when that count says the store may be
// over its budget or once it has written 1/64 of the budget since its last
// listing, so that many small writes (one per node of a database) do not
// each list the directory. The store may thus exceed its budget by up to
// 1/64 of it for each process writing to it at the same time.
// A temporary file left by a crashed process is removed by a later trim
// once it is an hour old.
//
// [Encode] and [Decode] give the bytes of one entry file, for entries kept
// elsewhere in the same form: the sidecar objects that vfs.Options.Sidecar
// writes beside an archive in its bucket, named by [Name].
//
// The store keeps bytes; what they mean is the business of the caller,
// which must validate what it decodes (a cache directory is writable by
// its user, so a file in it is input like any other). Failures to write
// are not reported to readers: an index that cannot be kept is rebuilt
// by the next process.
package disk

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultBudget is the byte budget of a Store opened with a budget of 0.
const DefaultBudget = 1 << 30

// MaxEntry bounds the bytes of one entry: larger ones are not kept, and a
// file that claims more is damaged.
const MaxEntry = 1 << 30

// maxKey bounds the length of a key.
const maxKey = 64 << 10

const (
	magic      = "pipefsix"
	version    = 1
	headerSize = len(magic) + 4 + 4 + 8 // magic, version, key length, data length
	trailer    = 4                      // CRC-32C
	suffix     = ".pfi"
	tmpPrefix  = ".tmp-"
	staleTemp  = time.Hour
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// A Store is a directory of index files bounded in bytes. It is safe for
// concurrent use, by goroutines and by processes sharing the directory.
type Store struct {
	dir    string
	budget int64

	mu     sync.Mutex // serialises trims within the process
	hits   int64
	misses int64
	puts   int64

	// What this process knows of the store's size (see wrote).
	listed   bool  // the directory was listed once
	est      int64 // bytes at the last listing, plus those written since
	since    int64 // bytes written since the last listing
	listings int64 // listings so far, for tests
}

// DefaultDir returns the directory where the pipefs command keeps its
// store by default: os.UserCacheDir()/pipefs. It computes the path and
// makes nothing; it reads no variable of pipefs's own (os.UserCacheDir
// reads the platform's, such as $XDG_CACHE_HOME).
func DefaultDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no directory for the index cache: %w", err)
	}
	return filepath.Join(d, "pipefs"), nil
}

// Open returns the store in dir, creating the directory if needed. budget
// bounds the bytes of its files; 0 means DefaultBudget.
func Open(dir string, budget int64) (*Store, error) {
	if dir == "" {
		return nil, errors.New("disk: empty directory name")
	}
	if budget <= 0 {
		budget = DefaultBudget
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("index cache: %w", err)
	}
	return &Store{dir: dir, budget: budget}, nil
}

// Dir returns the directory of the store.
func (s *Store) Dir() string { return s.dir }

// Budget returns the byte budget of the store.
func (s *Store) Budget() int64 { return s.budget }

// Stats are the counts of a Store's loads and writes in this process.
type Stats struct {
	Hits, Misses, Puts int64
}

// Stats returns the counts of loads and writes so far.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{Hits: s.hits, Misses: s.misses, Puts: s.puts}
}

func (s *Store) count(p *int64) {
	s.mu.Lock()
	*p++
	s.mu.Unlock()
}

// path returns the file of key.
func (s *Store) path(key string) string {
	return filepath.Join(s.dir, Name(key))
}

// Get returns the entry of key, and false when there is none. A file that
// fails its checks is removed and is a miss. limit bounds the entry's
// size (0 means MaxEntry): a larger entry is a miss.
func (s *Store) Get(key string, limit int64) ([]byte, bool) {
	if limit <= 0 || limit > MaxEntry {
		limit = MaxEntry
	}
	p := s.path(key)
	data, err := s.read(p, key, limit)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && errors.Is(err, errBad) {
			os.Remove(p)
		}
		s.count(&s.misses)
		return nil, false
	}
	now := time.Now()
	os.Chtimes(p, now, now) // recently used; a failure only ages it
	s.count(&s.hits)
	return data, true
}

var errBad = errors.New("damaged index cache file")

func (s *Store) read(p, key string, limit int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return ReadEntry(f, info.Size(), key, limit)
}

// ReadEntry reads an entry that Encode made for key from r, whose size
// is size bytes (-1 when unknown), and returns its data: the header is
// read and checked first, so that a damaged entry, or one over limit (0
// means MaxEntry), is refused before its data is read, and the entry is
// read into one buffer of its declared size. Any failure is an error, as
// with Decode. The sidecars of vfs.Options.Sidecar are read this way, as
// the files of a Store are.
func ReadEntry(r io.Reader, size int64, key string, limit int64) ([]byte, error) {
	if limit <= 0 || limit > MaxEntry {
		limit = MaxEntry
	}
	var h [headerSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, short(err)
	}
	if size < 0 {
		size = declared(h[:])
	}
	dlen, err := checkHeader(h[:], key, size, limit)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, headerSize+len(key)+int(dlen)+trailer)
	copy(buf, h[:])
	if _, err := io.ReadFull(r, buf[headerSize:]); err != nil {
		return nil, short(err)
	}
	return checkEntry(buf, key)
}

// short returns the error of a read that ended before the entry did: a
// file or body cut short is damage, a failed read is the failure.
func short(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return errBad
	}
	return err
}

// declared returns the size of the entry whose header is h, as the header
// declares it (-1 when it declares an impossible one).
func declared(h []byte) int64 {
	klen := int64(binary.LittleEndian.Uint32(h[12:]))
	dlen := binary.LittleEndian.Uint64(h[16:])
	if dlen > MaxEntry {
		return -1
	}
	return int64(headerSize) + klen + int64(dlen) + trailer
}

// checkHeader checks the header h of an entry file of size bytes that
// should hold key, and returns the length of its data. An entry over limit
// is an error that is not errBad: a miss, not damage.
func checkHeader(h []byte, key string, size, limit int64) (int64, error) {
	if len(h) < headerSize || string(h[:len(magic)]) != magic || binary.LittleEndian.Uint32(h[8:]) != version {
		return 0, errBad
	}
	klen := int64(binary.LittleEndian.Uint32(h[12:]))
	dlen := binary.LittleEndian.Uint64(h[16:])
	if klen != int64(len(key)) || dlen > MaxEntry ||
		size != int64(headerSize)+klen+int64(dlen)+trailer {
		return 0, errBad
	}
	if int64(dlen) > limit {
		return 0, errOverLimit
	}
	return int64(dlen), nil
}

var errOverLimit = errors.New("entry over the caller's limit")

// checkEntry checks the checksum and the key of the whole entry file buf,
// whose header checkHeader accepted, and returns its data.
func checkEntry(buf []byte, key string) ([]byte, error) {
	end := len(buf) - trailer
	if crc32.Checksum(buf[:end], castagnoli) != binary.LittleEndian.Uint32(buf[end:]) ||
		string(buf[headerSize:headerSize+len(key)]) != key {
		return nil, errBad
	}
	return buf[headerSize+len(key) : end : end], nil
}

// Encode returns the entry of key and data as a Store keeps it in a file:
// header, key, data and checksum. Programs that keep entries elsewhere
// (the sidecar objects of vfs.Options.Sidecar) store these bytes, and
// read them back with Decode.
func Encode(key string, data []byte) []byte {
	buf := make([]byte, headerSize, headerSize+len(key)+len(data)+trailer)
	copy(buf, magic)
	binary.LittleEndian.PutUint32(buf[8:], version)
	binary.LittleEndian.PutUint32(buf[12:], uint32(len(key)))
	binary.LittleEndian.PutUint64(buf[16:], uint64(len(data)))
	buf = append(buf, key...)
	buf = append(buf, data...)
	return binary.LittleEndian.AppendUint32(buf, crc32.Checksum(buf, castagnoli))
}

// Decode returns the data of entry, bytes that Encode made for key, if
// they check: header, lengths, checksum and key. limit bounds the data (0
// means MaxEntry). Any failure is an error: damaged bytes, an entry of
// another key or another format version, or one over limit.
func Decode(key string, entry []byte, limit int64) ([]byte, error) {
	if limit <= 0 || limit > MaxEntry {
		limit = MaxEntry
	}
	if _, err := checkHeader(entry, key, int64(len(entry)), limit); err != nil {
		return nil, err
	}
	return checkEntry(entry, key)
}

// Name returns the name of the file, or object, that keeps the entry of
// key: the hex SHA-256 of the key and the suffix ".pfi".
func Name(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:]) + suffix
}

// Put keeps data under key, replacing any earlier entry, and trims the
// store to its budget. An entry over MaxEntry or the budget, or a key over
// 64 KiB, is not kept.
func (s *Store) Put(key string, data []byte) error {
	if len(key) > maxKey || int64(len(data)) > MaxEntry || int64(len(data)) > s.budget/2 {
		return errors.New("index cache: entry too large to keep")
	}
	entry := Encode(key, data)
	f, err := os.CreateTemp(s.dir, tmpPrefix+"*")
	if err != nil {
		return fmt.Errorf("index cache: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(entry)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, s.path(key))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("index cache: %w", err)
	}
	s.count(&s.puts)
	s.wrote(int64(len(entry)))
	return nil
}

// Remove drops the entry of key, if any.
func (s *Store) Remove(key string) { os.Remove(s.path(key)) }

// Size returns the bytes of the store's files.
func (s *Store) Size() int64 {
	var n int64
	for _, f := range s.files() {
		n += f.size
	}
	return n
}

type file struct {
	name  string
	size  int64
	mtime time.Time
}

// files lists the store's entries, and removes stale temporary files.
func (s *Store) files() []file {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return nil
	}
	var out []file
	for _, e := range ents {
		name := e.Name()
		temp := strings.HasPrefix(name, tmpPrefix)
		if !temp && !strings.HasSuffix(name, suffix) {
			continue // not ours
		}
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if temp {
			if time.Since(info.ModTime()) > staleTemp {
				os.Remove(filepath.Join(s.dir, name))
			}
			continue
		}
		out = append(out, file{name, info.Size(), info.ModTime()})
	}
	return out
}

// Trim removes the least recently used entries while the store is over
// its budget, down to 90% of it. Put calls it.
func (s *Store) Trim() {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.files()
	var total int64
	for _, f := range list {
		total += f.size
	}
	s.listings++
	s.listed, s.since = true, 0
	defer func() { s.est = total }()
	if total <= s.budget {
		return
	}
	slices.SortFunc(list, func(a, b file) int { return a.mtime.Compare(b.mtime) })
	goal := s.budget / 10 * 9
	for _, f := range list {
		if total <= goal {
			break
		}
		if err := os.Remove(filepath.Join(s.dir, f.name)); err == nil || errors.Is(err, fs.ErrNotExist) {
			total -= f.size
		}
	}
}
