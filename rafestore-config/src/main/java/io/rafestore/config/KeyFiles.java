package io.rafestore.config;

import io.rafestore.SigningKeys;
import java.io.IOException;
import java.io.Writer;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.interfaces.EdECPrivateKey;
import java.security.spec.NamedParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Reads and writes writer key files: an Ed25519 key pair in a small, line-based text format.
 *
 * <p>A <b>private key file</b> (conventionally {@code ID.key}) holds both halves of a writer's key
 * pair; it must be readable by its owner only, and {@link #readKeyPair} refuses it otherwise, as
 * ssh does:
 *
 * <pre>
 * # comment lines start with '#'
 * rafestore-writer-key: 1
 * writer: alice
 * public: &lt;Base64 of the X.509 SubjectPublicKeyInfo DER encoding&gt;
 * private: &lt;Base64 of the PKCS#8 DER encoding&gt;
 * </pre>
 *
 * <p>A <b>public key file</b> ({@code ID.pub}) is what other clients trust; it is not secret:
 *
 * <pre>
 * rafestore-public-key: 1
 * writer: alice
 * public: &lt;Base64 X.509 DER&gt;
 * </pre>
 *
 * The first line that is not blank or a comment is the format line; the fields that follow may come
 * in any order, each once. The Base64 forms are those of {@link SigningKeys}. Thread-safe
 * (stateless).
 */
public final class KeyFiles {
  private static final String PRIVATE_FORMAT = "rafestore-writer-key";
  private static final String PUBLIC_FORMAT = "rafestore-public-key";
  private static final Set<PosixFilePermission> OWNER_ONLY =
      EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);

  private KeyFiles() {}

  /**
   * A writer's key pair as read from a private key file.
   *
   * @param writerId the writer id written in the file
   * @param keys the Ed25519 key pair
   */
  public record WriterKey(String writerId, KeyPair keys) {
    public WriterKey {
      Objects.requireNonNull(writerId, "writerId");
      Objects.requireNonNull(keys, "keys");
    }

    @Override
    public String toString() {
      return "WriterKey[" + writerId + "]"; // never the private key
    }
  }

  /**
   * A writer's public key as read from a public key file.
   *
   * @param writerId the writer id written in the file
   * @param publicKey the Ed25519 public key
   */
  public record TrustedKey(String writerId, PublicKey publicKey) {
    public TrustedKey {
      Objects.requireNonNull(writerId, "writerId");
      Objects.requireNonNull(publicKey, "publicKey");
    }
  }

  /**
   * The public key file that goes with {@code privateKeyFile}: its name with {@code .key} replaced
   * by {@code .pub}, or with {@code .pub} appended when it does not end in {@code .key}.
   */
  public static Path publicFileFor(Path privateKeyFile) {
    Path fileName = privateKeyFile.getFileName();
    if (fileName == null) {
      throw new IllegalArgumentException("not a file name: " + privateKeyFile);
    }
    String name = fileName.toString();
    String pub =
        name.endsWith(".key") ? name.substring(0, name.length() - 4) + ".pub" : name + ".pub";
    return privateKeyFile.resolveSibling(pub);
  }

  /**
   * Writes {@code keys} to {@code privateKeyFile} (created readable and writable by its owner only
   * where the file system has POSIX permissions) and the public half to {@link #publicFileFor}.
   * Existing files are never overwritten.
   *
   * @return the public key file written
   * @throws FileAlreadyExistsException if either file exists; nothing is written then
   * @throws IllegalArgumentException if {@code writerId} is not 1-64 characters of {@code A-Z a-z
   *     0-9 - _} or {@code keys} is not an Ed25519 pair
   */
  public static Path write(Path privateKeyFile, String writerId, KeyPair keys) throws IOException {
    checkWriterId(writerId);
    if (!"Ed25519".equals(keys.getPublic().getAlgorithm())
        && !"EdDSA".equals(keys.getPublic().getAlgorithm())) {
      throw new IllegalArgumentException(
          "keys must be an Ed25519 pair, was " + keys.getPublic().getAlgorithm());
    }
    Path publicFile = publicFileFor(privateKeyFile);
    if (Files.exists(publicFile)) {
      throw new FileAlreadyExistsException(publicFile.toString(), null, "will not overwrite it");
    }
    String pub = SigningKeys.encodePublic(keys.getPublic());
    String priv =
        "# RafeStore writer key (Ed25519). Keep it secret: whoever holds this file can write as "
            + writerId
            + ".\n"
            + PRIVATE_FORMAT
            + ": 1\nwriter: "
            + writerId
            + "\npublic: "
            + pub
            + "\nprivate: "
            + SigningKeys.encodePrivate(keys.getPrivate())
            + "\n";
    writeNew(privateKeyFile, priv, true);
    String pubText =
        "# RafeStore writer public key (Ed25519): trust it with\n#   trusted."
            + writerId
            + " = "
            + publicFile.getFileName()
            + "\n"
            + PUBLIC_FORMAT
            + ": 1\nwriter: "
            + writerId
            + "\npublic: "
            + pub
            + "\n";
    try {
      writeNew(publicFile, pubText, false);
    } catch (IOException e) {
      Files.deleteIfExists(privateKeyFile);
      throw e;
    }
    return publicFile;
  }

  private static void writeNew(Path file, String text, boolean ownerOnly) throws IOException {
    List<OpenOption> options = List.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    Path parent = file.toAbsolutePath().getParent();
    boolean posix =
        ownerOnly
            && parent != null
            && Files.getFileAttributeView(parent, PosixFileAttributeView.class) != null;
    FileAttribute<?>[] attributes =
        posix
            ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_ONLY)}
            : new FileAttribute<?>[0];
    // The permissions are set at creation, so the secret is never readable by others, not even
    // for a moment; the umask can only remove bits, and owner read/write survive any sane one.
    try (Writer w =
        Channels.newWriter(
            Files.newByteChannel(file, Set.copyOf(options), attributes), StandardCharsets.UTF_8)) {
      w.write(text);
    }
  }

  /**
   * Reads a private key file.
   *
   * @throws ConfigException naming the file, line and field if it is malformed, if its two halves
   *     do not belong together, or if group or others may read it
   * @throws NoSuchFileException if it does not exist
   */
  public static WriterKey readKeyPair(Path file) throws IOException {
    return readKeyPair(file, null);
  }

  /**
   * Reads a private key: a RafeStore private key file, or an Ed25519 private key in PKCS#8 PEM
   * ({@code -----BEGIN PRIVATE KEY-----}, as {@code openssl genpkey -algorithm ed25519} writes),
   * which holds no writer id: {@code writerIdForPem} is its id. Either must be readable by its
   * owner only.
   *
   * @param writerIdForPem the writer id of a PEM key; null to refuse PEM keys
   * @throws ConfigException naming the file, line and field if it is malformed, if its two halves
   *     do not belong together, or if group or others may read it
   * @throws NoSuchFileException if it does not exist
   */
  public static WriterKey readKeyPair(Path file, String writerIdForPem) throws IOException {
    String source = file.toString();
    String text = Files.readString(file, StandardCharsets.UTF_8);
    if (isPem(text)) {
      checkOwnerOnly(file);
      if (writerIdForPem == null) {
        throw new ConfigException(source, 0, null, "a PEM key holds no writer id; give it one");
      }
      byte[] der = pemBody(source, text, "PRIVATE KEY");
      PrivateKey priv;
      try {
        priv = KeyFactory.getInstance("Ed25519").generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException | RuntimeException e) {
        // The value is not echoed: it is (or was meant to be) a secret.
        throw new ConfigException(source, 0, null, "not a PKCS#8 Ed25519 private key");
      }
      PublicKey pub = derivePublic(source, priv);
      return new WriterKey(checkWriterId(writerIdForPem), new KeyPair(pub, priv));
    }
    Map<String, Field> fields = parse(file, PRIVATE_FORMAT, List.of("writer", "public", "private"));
    // The format first: a public key file given by mistake is named as such, not as too open.
    checkOwnerOnly(file);
    Field writer = fields.get("writer");
    String id = checkWriterId(source, writer);
    PublicKey pub = decodePublic(source, fields.get("public"));
    Field privField = fields.get("private");
    PrivateKey priv;
    try {
      priv = SigningKeys.decodePrivate(privField.value);
    } catch (IllegalArgumentException e) {
      // The value is not echoed: it is (or was meant to be) a secret.
      throw new ConfigException(
          source, privField.line, "private", "not a Base64 PKCS#8 Ed25519 private key");
    }
    if (!belongTogether(pub, priv)) {
      throw new ConfigException(
          source,
          fields.get("public").line,
          "public",
          "the public key does not belong to the private key in this file");
    }
    return new WriterKey(id, new KeyPair(pub, priv));
  }

  /**
   * Reads a public key file.
   *
   * @throws ConfigException naming the file, line and field if it is malformed
   * @throws NoSuchFileException if it does not exist
   */
  public static TrustedKey readPublicKey(Path file) throws IOException {
    return readPublicKey(file, null);
  }

  /**
   * Reads a public key: a RafeStore public key file, or an Ed25519 public key in X.509 PEM ({@code
   * -----BEGIN PUBLIC KEY-----}, as {@code openssl pkey -pubout} writes), which holds no writer id:
   * {@code writerIdForPem} is its id.
   *
   * @param writerIdForPem the writer id of a PEM key; null to refuse PEM keys
   * @throws ConfigException naming the file, line and field if it is malformed
   * @throws NoSuchFileException if it does not exist
   */
  public static TrustedKey readPublicKey(Path file, String writerIdForPem) throws IOException {
    String source = file.toString();
    String text = Files.readString(file, StandardCharsets.UTF_8);
    if (isPem(text)) {
      if (writerIdForPem == null) {
        throw new ConfigException(source, 0, null, "a PEM key holds no writer id; give it one");
      }
      byte[] der = pemBody(source, text, "PUBLIC KEY");
      try {
        return new TrustedKey(
            checkWriterId(writerIdForPem),
            KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(der)));
      } catch (GeneralSecurityException | RuntimeException e) {
        throw new ConfigException(source, 0, null, "not an X.509 Ed25519 public key");
      }
    }
    Map<String, Field> fields = parse(file, PUBLIC_FORMAT, List.of("writer", "public"));
    return new TrustedKey(
        checkWriterId(source, fields.get("writer")), decodePublic(source, fields.get("public")));
  }

  private record Field(String value, int line) {}

  private static Map<String, Field> parse(Path file, String format, List<String> required)
      throws IOException {
    String source = file.toString();
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    Map<String, Field> fields = new LinkedHashMap<>();
    boolean sawFormat = false;
    for (int i = 0; i < lines.size(); i++) {
      int lineNo = i + 1;
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int colon = line.indexOf(':');
      if (colon <= 0) {
        throw new ConfigException(
            source, lineNo, null, "expected 'name: value' (the file is not a RafeStore key file)");
      }
      String name = line.substring(0, colon).strip();
      String value = line.substring(colon + 1).strip();
      if (!sawFormat) {
        if (!name.equals(format)) {
          String other = format.equals(PRIVATE_FORMAT) ? PUBLIC_FORMAT : PRIVATE_FORMAT;
          throw new ConfigException(
              source,
              lineNo,
              null,
              name.equals(other)
                  ? "this is a " + describe(other) + ", a " + describe(format) + " is needed here"
                  : "not a RafeStore key file: the first line must be '" + format + ": 1'");
        }
        if (!value.equals("1")) {
          throw new ConfigException(
              source,
              lineNo,
              format,
              "unsupported key file version '" + value + "'; this version reads version 1");
        }
        sawFormat = true;
        continue;
      }
      if (!required.contains(name)) {
        throw new ConfigException(
            source, lineNo, name, "unknown field; a " + describe(format) + " has " + required);
      }
      Field previous = fields.putIfAbsent(name, new Field(value, lineNo));
      if (previous != null) {
        throw new ConfigException(
            source, lineNo, name, "set twice (first on line " + previous.line + ")");
      }
    }
    if (!sawFormat) {
      throw new ConfigException(
          source, 0, null, "empty: not a RafeStore key file (expected '" + format + ": 1')");
    }
    for (String name : required) {
      if (!fields.containsKey(name)) {
        throw new ConfigException(source, 0, name, "missing");
      }
    }
    return fields;
  }

  private static String describe(String format) {
    return format.equals(PRIVATE_FORMAT) ? "private key file" : "public key file";
  }

  private static String checkWriterId(String source, Field writer) throws ConfigException {
    try {
      return checkWriterId(writer.value);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(source, writer.line, "writer", e.getMessage());
    }
  }

  private static PublicKey decodePublic(String source, Field f) throws ConfigException {
    try {
      return SigningKeys.decodePublic(f.value);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(source, f.line, "public", e.getMessage());
    }
  }

  /** Checks a writer (or cloud) id: 1 to 64 characters of A-Z a-z 0-9 - _. */
  static String checkWriterId(String id) {
    if (id == null || !id.matches("[A-Za-z0-9_-]{1,64}")) {
      throw new IllegalArgumentException(
          "'" + id + "' is not a writer id (1 to 64 characters of A-Z a-z 0-9 - _)");
    }
    return id;
  }

  /**
   * Writes {@code keys} as PEM: {@code privateKeyFile} in PKCS#8 ({@code BEGIN PRIVATE KEY},
   * created owner-only) and the public half in X.509 ({@code BEGIN PUBLIC KEY}) to {@link
   * #publicFileFor}, the forms OpenSSL reads and writes. PEM holds no writer id: the configuration
   * gives it ({@code writer.id}, {@code trusted.ID}). Existing files are never overwritten.
   *
   * @return the public key file written
   * @throws FileAlreadyExistsException if either file exists; nothing is written then
   */
  public static Path writePem(Path privateKeyFile, KeyPair keys) throws IOException {
    Path publicFile = publicFileFor(privateKeyFile);
    if (Files.exists(publicFile)) {
      throw new FileAlreadyExistsException(publicFile.toString(), null, "will not overwrite it");
    }
    writeNew(privateKeyFile, pem("PRIVATE KEY", keys.getPrivate().getEncoded()), true);
    try {
      writeNew(publicFile, pem("PUBLIC KEY", keys.getPublic().getEncoded()), false);
    } catch (IOException e) {
      Files.deleteIfExists(privateKeyFile);
      throw e;
    }
    return publicFile;
  }

  private static String pem(String label, byte[] der) {
    String body =
        Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    return "-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\n";
  }

  private static boolean isPem(String text) {
    return text.strip().startsWith("-----BEGIN ");
  }

  /** The DER bytes of the one {@code label} block of PEM text. */
  private static byte[] pemBody(String source, String text, String label) throws ConfigException {
    String begin = "-----BEGIN " + label + "-----";
    String end = "-----END " + label + "-----";
    int b = text.indexOf(begin);
    int e = text.indexOf(end);
    if (b < 0 || e < b) {
      String found = text.strip().lines().findFirst().orElse("");
      throw new ConfigException(
          source,
          1,
          null,
          "expected a PEM '"
              + begin
              + "' block, found '"
              + found
              + "'"
              + (found.contains("ENCRYPTED")
                  ? " (decrypt it first: openssl pkey -in KEY -out PLAIN.pem)"
                  : ""));
    }
    try {
      return Base64.getMimeDecoder().decode(text.substring(b + begin.length(), e));
    } catch (IllegalArgumentException ex) {
      throw new ConfigException(source, 0, null, "the PEM block is not valid Base64");
    }
  }

  /**
   * The public key of an Ed25519 private key. The JDK has no call for it, but its key pair
   * generator derives the public key from 32 random bytes that are the private key; fed the private
   * key's bytes as its "random" input, it yields the matching pair (RFC 8032, 5.1.5).
   */
  private static PublicKey derivePublic(String source, PrivateKey priv) throws ConfigException {
    byte[] seed =
        priv instanceof EdECPrivateKey ed ? ed.getBytes().orElse(new byte[0]) : new byte[0];
    if (seed.length != 32) {
      throw new ConfigException(source, 0, null, "not an Ed25519 private key");
    }
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("Ed25519");
      g.initialize(
          NamedParameterSpec.ED25519,
          new SecureRandom() {
            private static final long serialVersionUID = 1L;

            @Override
            public void nextBytes(byte[] bytes) {
              System.arraycopy(seed, 0, bytes, 0, Math.min(seed.length, bytes.length));
            }
          });
      KeyPair pair = g.generateKeyPair();
      if (!(pair.getPrivate() instanceof EdECPrivateKey derived)
          || !Arrays.equals(derived.getBytes().orElse(null), seed)
          || !belongTogether(pair.getPublic(), priv)) {
        throw new ConfigException(
            source, 0, null, "could not derive the public key of this private key");
      }
      return pair.getPublic();
    } catch (GeneralSecurityException e) {
      throw new ConfigException(source, 0, null, "this JVM has no Ed25519: " + e.getMessage());
    } finally {
      Arrays.fill(seed, (byte) 0);
    }
  }

  private static void checkOwnerOnly(Path file) throws IOException {
    PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class);
    if (view == null) {
      return;
    }
    Set<PosixFilePermission> perms = view.readAttributes().permissions();
    Set<PosixFilePermission> extra = EnumSet.copyOf(perms);
    extra.removeAll(
        EnumSet.of(
            PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE,
            PosixFilePermission.OWNER_EXECUTE));
    if (!extra.isEmpty()) {
      throw new ConfigException(
          file.toString(),
          0,
          null,
          "private key file is accessible by group or others (permissions "
              + PosixFilePermissions.toString(perms)
              + "); run 'chmod 600 "
              + file
              + "'");
    }
  }

  private static boolean belongTogether(PublicKey pub, PrivateKey priv) {
    try {
      byte[] probe = "rafestore key file check".getBytes(StandardCharsets.US_ASCII);
      Signature s = Signature.getInstance("Ed25519");
      s.initSign(priv);
      s.update(probe);
      byte[] sig = s.sign();
      Signature v = Signature.getInstance("Ed25519");
      v.initVerify(pub);
      v.update(probe);
      return v.verify(sig);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }
}
