// A log monitor nobody at token-authority wrote the checks of: Go's golang.org/x/mod/sumdb/tlog
// (Debian's golang-golang-x-mod-dev) reads the log tree's public C2SP tiles, and
// golang.org/x/mod/sumdb/note verifies the checkpoint. Usage:
//
//	go run main.go <log prefix URL> <verifier key> [<older checkpoint file> [<first leaf>]]
//
// It prints one JSON object: the checkpoint's size, whether the tree hash the tiles make equals
// its root, and for the first leaf (0, or the one given: a pruned log serves nothing below its
// minimum index) and the last leaf an inclusion proof checked; with an older checkpoint, a
// consistency proof from it. Exit status 1 on any failure, with its reason.
package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

var client = &http.Client{Timeout: 10 * time.Second}

func get(url string) ([]byte, error) {
	response, err := client.Get(url)
	if err != nil {
		return nil, err
	}
	defer response.Body.Close()
	body, err := io.ReadAll(io.LimitReader(response.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if response.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d: %s", url, response.StatusCode, body)
	}
	return body, nil
}

// A C2SP tiles reader: Go's tile paths carry the height (tile/8/L/N); C2SP's do not (tile/L/N).
type tiles struct{ prefix string }

func (tiles) Height() int { return 8 }

func (t tiles) ReadTiles(wanted []tlog.Tile) ([][]byte, error) {
	data := make([][]byte, len(wanted))
	for i, tile := range wanted {
		body, err := get(t.prefix + "/tile/" + strings.TrimPrefix(tile.Path(), "tile/8/"))
		if err != nil {
			return nil, err
		}
		data[i] = body
	}
	return data, nil
}

func (tiles) SaveTiles([]tlog.Tile, [][]byte) {}

// The checkpoint's tree, once its signature by `verifier` is checked.
func checkpoint(text []byte, verifier note.Verifier) (tlog.Tree, error) {
	opened, err := note.Open(text, note.VerifierList(verifier))
	if err != nil {
		return tlog.Tree{}, err
	}
	lines := strings.Split(opened.Text, "\n")
	if len(lines) < 4 || lines[0] != verifier.Name() {
		return tlog.Tree{}, fmt.Errorf("not a checkpoint of origin %q", verifier.Name())
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		return tlog.Tree{}, err
	}
	root, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(root) != tlog.HashSize {
		return tlog.Tree{}, fmt.Errorf("bad root hash")
	}
	var hash tlog.Hash
	copy(hash[:], root)
	return tlog.Tree{N: size, Hash: hash}, nil
}

func fail(err error) {
	out, _ := json.Marshal(map[string]any{"ok": false, "reason": err.Error()})
	fmt.Println(string(out))
	os.Exit(1)
}

func main() {
	if len(os.Args) < 3 {
		fail(fmt.Errorf("usage: go run main.go <log prefix URL> <verifier key> [<older checkpoint> [<first leaf>]]"))
	}
	prefix, vkey := os.Args[1], os.Args[2]
	verifier, err := note.NewVerifier(vkey)
	if err != nil {
		fail(err)
	}
	text, err := get(prefix + "/checkpoint")
	if err != nil {
		fail(err)
	}
	tree, err := checkpoint(text, verifier)
	if err != nil {
		fail(err)
	}
	reader := tlog.TileHashReader(tree, tiles{prefix})
	// The tree hash from the tiles, each tile checked against the checkpoint on the way.
	root, err := tlog.TreeHash(tree.N, reader)
	if err != nil {
		fail(err)
	}
	if root != tree.Hash {
		fail(fmt.Errorf("the tiles make root %s, the checkpoint says %s", root, tree.Hash))
	}
	result := map[string]any{"ok": true, "size": tree.N, "root": tree.Hash.String()}
	first := int64(0)
	if len(os.Args) > 4 {
		if first, err = strconv.ParseInt(os.Args[4], 10, 64); err != nil {
			fail(err)
		}
	}
	proved := []int64{}
	for _, leaf := range []int64{first, tree.N - 1} {
		hashes, err := reader.ReadHashes([]int64{tlog.StoredHashIndex(0, leaf)})
		if err != nil {
			fail(err)
		}
		proof, err := tlog.ProveRecord(tree.N, leaf, reader)
		if err != nil {
			fail(err)
		}
		if err := tlog.CheckRecord(proof, tree.N, tree.Hash, leaf, hashes[0]); err != nil {
			fail(err)
		}
		proved = append(proved, leaf)
	}
	result["inclusion_checked"] = proved
	if len(os.Args) > 3 {
		older, err := os.ReadFile(os.Args[3])
		if err != nil {
			fail(err)
		}
		old, err := checkpoint(older, verifier)
		if err != nil {
			fail(err)
		}
		proof, err := tlog.ProveTree(tree.N, old.N, reader)
		if err != nil {
			fail(err)
		}
		if err := tlog.CheckTree(proof, tree.N, tree.Hash, old.N, old.Hash); err != nil {
			fail(err)
		}
		result["consistent_with"] = old.N
	}
	out, _ := json.Marshal(result)
	fmt.Println(string(out))
}
