package backup

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"filippo.io/age"
	"filippo.io/age/armor"
)

// ageMagic begins every age-encrypted file; ageArmorMagic an armored one.
const (
	ageMagic      = "age-encryption.org/"
	ageArmorMagic = "-----BEGIN AGE ENCRYPTED FILE-----"
)

// maxIdentityFile bounds the identity file restore reads.
const maxIdentityFile = 1 << 20

// ParseRecipient reads an age X25519 public key (age1...).
func ParseRecipient(key string) (age.Recipient, error) {
	r, err := age.ParseX25519Recipient(strings.TrimSpace(key))
	if err != nil {
		return nil, fmt.Errorf("%q is not an age public key (age1..., as age-keygen prints): %v", key, err)
	}
	return r, nil
}

// writeMaybeEncrypted calls write with w, or, when recipient is set, with a
// writer that encrypts to it on its way to w.
func writeMaybeEncrypted(w io.Writer, recipient age.Recipient, write func(io.Writer) error) error {
	if recipient == nil {
		return write(w)
	}
	enc, err := age.Encrypt(w, recipient)
	if err != nil {
		return err
	}
	if err := write(enc); err != nil {
		return err
	}
	return enc.Close() // writes the last chunk and its authentication tag
}

// openMaybeEncrypted returns what to unpack of the archive read from r: r
// itself, or, when the archive is age-encrypted (binary or armored), its
// decryption with the identities in the file identityPath.
func openMaybeEncrypted(r io.Reader, identityPath string) (io.Reader, error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(len(ageArmorMagic))
	encrypted := bytes.HasPrefix(head, []byte(ageMagic))
	var src io.Reader = br
	if bytes.HasPrefix(head, []byte(ageArmorMagic)) {
		encrypted, src = true, armor.NewReader(br)
	}
	if !encrypted {
		return br, nil
	}
	if identityPath == "" {
		return nil, errors.New("the archive is encrypted with age; give the file holding its secret key (AGE-SECRET-KEY-1...) with --identity FILE")
	}
	ids, err := readIdentities(identityPath)
	if err != nil {
		return nil, err
	}
	out, err := age.Decrypt(src, ids...)
	var nomatch *age.NoIdentityMatchError
	if errors.As(err, &nomatch) {
		return nil, fmt.Errorf("no key in %s opens the archive; it was encrypted to another recipient", identityPath)
	} else if err != nil {
		return nil, fmt.Errorf("cannot decrypt: %w", err)
	}
	return out, nil
}

// readIdentities reads the age secret keys in the file at path.
func readIdentities(path string) ([]age.Identity, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--identity: %w", err)
	}
	defer f.Close()
	ids, err := age.ParseIdentities(io.LimitReader(f, maxIdentityFile))
	if err != nil {
		return nil, fmt.Errorf("--identity %s holds no age secret key (AGE-SECRET-KEY-1...): %v", path, err)
	}
	return ids, nil
}
