package io.rafestore.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.rafestore.SigningKeys;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.KeyPair;
import java.security.Signature;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyFilesTest {
  @TempDir Path dir;

  @Test
  void writesAPairThatReadsBackAndSigns() throws Exception {
    KeyPair keys = SigningKeys.generate();
    Path pub = KeyFiles.write(dir.resolve("w1.key"), "w1", keys);
    assertThat(pub).isEqualTo(dir.resolve("w1.pub"));

    KeyFiles.WriterKey read = KeyFiles.readKeyPair(dir.resolve("w1.key"));
    assertThat(read.writerId()).isEqualTo("w1");
    assertThat(read.keys().getPrivate().getEncoded()).isEqualTo(keys.getPrivate().getEncoded());
    KeyFiles.TrustedKey trusted = KeyFiles.readPublicKey(pub);
    assertThat(trusted.writerId()).isEqualTo("w1");
    assertThat(trusted.publicKey()).isEqualTo(keys.getPublic());

    Signature s = Signature.getInstance("Ed25519");
    s.initSign(read.keys().getPrivate());
    s.update(new byte[] {1, 2, 3});
    byte[] sig = s.sign();
    Signature v = Signature.getInstance("Ed25519");
    v.initVerify(trusted.publicKey());
    v.update(new byte[] {1, 2, 3});
    assertThat(v.verify(sig)).isTrue();
  }

  @Test
  void privateKeyFileIsOwnerOnly() throws Exception {
    KeyFiles.write(dir.resolve("w.key"), "w", SigningKeys.generate());
    assertThat(Files.getPosixFilePermissions(dir.resolve("w.key")))
        .isEqualTo(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));
  }

  @Test
  void neverOverwrites() throws Exception {
    KeyFiles.write(dir.resolve("w.key"), "w", SigningKeys.generate());
    byte[] before = Files.readAllBytes(dir.resolve("w.key"));
    assertThrows(
        FileAlreadyExistsException.class,
        () -> KeyFiles.write(dir.resolve("w.key"), "w", SigningKeys.generate()));
    assertThat(Files.readAllBytes(dir.resolve("w.key"))).isEqualTo(before);
  }

  @Test
  void publicFileNameFollowsThePrivateOne() {
    assertThat(KeyFiles.publicFileFor(Path.of("a/alice.key"))).isEqualTo(Path.of("a/alice.pub"));
    assertThat(KeyFiles.publicFileFor(Path.of("alice"))).isEqualTo(Path.of("alice.pub"));
  }

  @Test
  void rejectsHalvesThatDoNotBelongTogether() throws Exception {
    KeyFiles.write(dir.resolve("a.key"), "a", SigningKeys.generate());
    KeyFiles.write(dir.resolve("b.key"), "b", SigningKeys.generate());
    String a = Files.readString(dir.resolve("a.key"));
    String otherPublic =
        Files.readString(dir.resolve("b.pub"))
            .lines()
            .filter(l -> l.startsWith("public:"))
            .findFirst()
            .orElseThrow();
    String mixed =
        a.lines()
            .map(l -> l.startsWith("public:") ? otherPublic : l)
            .reduce("", (x, y) -> x + y + "\n");
    Files.writeString(dir.resolve("a.key"), mixed, StandardCharsets.UTF_8);
    ConfigException e =
        assertThrows(ConfigException.class, () -> KeyFiles.readKeyPair(dir.resolve("a.key")));
    assertThat(e.field()).contains("public");
    assertThat(e.line()).isEqualTo(4);
    assertThat(e.getMessage()).contains("does not belong to the private key");
  }

  @Test
  void namesTheLineOfAGarbledField() throws Exception {
    Path f = dir.resolve("x.pub");
    Files.writeString(f, "# c\nrafestore-public-key: 1\nwriter: x\npublic: AAAA\n");
    ConfigException e = assertThrows(ConfigException.class, () -> KeyFiles.readPublicKey(f));
    assertThat(e.line()).isEqualTo(4);
    assertThat(e.field()).contains("public");

    Files.writeString(f, "rafestore-public-key: 2\nwriter: x\n");
    e = assertThrows(ConfigException.class, () -> KeyFiles.readPublicKey(f));
    assertThat(e.getMessage()).contains("unsupported key file version '2'");

    Files.writeString(f, "rafestore-public-key: 1\nwriter: x\n");
    e = assertThrows(ConfigException.class, () -> KeyFiles.readPublicKey(f));
    assertThat(e.field()).contains("public");
    assertThat(e.problem()).isEqualTo("missing");

    Files.writeString(f, "hello world\n");
    e = assertThrows(ConfigException.class, () -> KeyFiles.readPublicKey(f));
    assertThat(e.line()).isEqualTo(1);
  }

  @Test
  void doesNotEchoAGarbledPrivateKey() throws Exception {
    Path f = dir.resolve("p.key");
    String pub = SigningKeys.encodePublic(SigningKeys.generate().getPublic());
    Files.writeString(
        f, "rafestore-writer-key: 1\nwriter: p\npublic: " + pub + "\nprivate: SECRETSECRET\n");
    Files.setPosixFilePermissions(
        f, Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));
    ConfigException e = assertThrows(ConfigException.class, () -> KeyFiles.readKeyPair(f));
    assertThat(e.line()).isEqualTo(4);
    assertThat(e.getMessage()).doesNotContain("SECRET");
  }

  @Test
  void pemKeysRoundTripAndTheirPublicHalfIsDerived() throws Exception {
    KeyPair keys = SigningKeys.generate();
    Path priv = dir.resolve("w.key");
    Path pub = KeyFiles.writePem(priv, keys);
    assertThat(Files.readString(priv)).startsWith("-----BEGIN PRIVATE KEY-----\n");
    assertThat(Files.readString(pub)).startsWith("-----BEGIN PUBLIC KEY-----\n");

    KeyFiles.WriterKey read = KeyFiles.readKeyPair(priv, "w");
    assertThat(read.writerId()).isEqualTo("w");
    // The derived public key is the generated one.
    assertThat(read.keys().getPublic().getEncoded()).isEqualTo(keys.getPublic().getEncoded());
    KeyFiles.TrustedKey trusted = KeyFiles.readPublicKey(pub, "w");
    assertThat(trusted.publicKey().getEncoded()).isEqualTo(keys.getPublic().getEncoded());

    // Without an id to give it, a PEM key is refused; so is a PEM block of the wrong kind.
    assertThat(assertThrows(ConfigException.class, () -> KeyFiles.readKeyPair(priv)).problem())
        .contains("no writer id");
    assertThat(
            assertThrows(ConfigException.class, () -> KeyFiles.readPublicKey(priv, "w")).problem())
        .contains("BEGIN PUBLIC KEY");
    Path encrypted = dir.resolve("enc.pem");
    Files.writeString(
        encrypted,
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n");
    Files.setPosixFilePermissions(
        encrypted, Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));
    assertThat(
            assertThrows(ConfigException.class, () -> KeyFiles.readKeyPair(encrypted, "w"))
                .problem())
        .contains("openssl pkey");
  }
}
