package io.rafestore.cache;

import io.rafestore.CacheEvent;
import io.rafestore.ValueCache.Unit;
import io.rafestore.Version;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The file of one cached unit. Big-endian, explicit, never Java serialisation:
 *
 * <pre>
 * magic "RFSC" | format u8 = 1 | key u16 + UTF-8 | timestamp i64 | writer u8 + ASCII |
 * incarnation i64 | part i32 (-1: whole) | sha256 [32] | size i64 | the unit's stored bytes [size]
 * </pre>
 *
 * named {@code <hex SHA-256 of the header up to size>.unit}. Every field is bounded before anything
 * is allocated; a file is served only if its header names the unit asked for, its length is the
 * header's plus {@code size}, and the bytes hash to the header's {@code sha256}. Stateless.
 */
final class UnitFile {
  static final byte[] MAGIC = {'R', 'F', 'S', 'C'};
  static final int FORMAT = 1;
  static final String SUFFIX = ".unit";
  static final String TEMP_SUFFIX = ".tmp";

  private UnitFile() {}

  /** A unit file's header: the unit it holds, and the header's length. */
  record Header(Unit unit, int length) {}

  /** A file that must not be served: why, and the key it names if it names one. */
  static final class BadFileException extends IOException {
    private static final long serialVersionUID = 1L;
    final transient CacheEvent.Kind kind;
    final String key;

    BadFileException(CacheEvent.Kind kind, String key, String message) {
      super(message);
      this.kind = kind;
      this.key = key;
    }
  }

  /** The header bytes of {@code unit}. */
  static byte[] header(Unit unit) {
    try {
      ByteArrayOutputStream buf = new ByteArrayOutputStream(128);
      DataOutputStream out = new DataOutputStream(buf);
      out.write(MAGIC);
      out.writeByte(FORMAT);
      byte[] key = unit.key().getBytes(StandardCharsets.UTF_8);
      out.writeShort(key.length);
      out.write(key);
      Version v = unit.version();
      out.writeLong(v.timestamp());
      byte[] writer = v.writer().getBytes(StandardCharsets.US_ASCII);
      out.writeByte(writer.length);
      out.write(writer);
      out.writeLong(v.incarnation());
      out.writeInt(unit.part());
      out.write(unit.sha256());
      out.writeLong(unit.size());
      out.flush();
      return buf.toByteArray();
    } catch (IOException e) {
      throw new IllegalStateException("writing to memory failed", e);
    }
  }

  /** Where {@code unit}'s file lies in {@code dir}. */
  static Path path(Path dir, Unit unit) {
    return dir.resolve(HexFormat.of().formatHex(sha256(header(unit))) + SUFFIX);
  }

  /** Writes {@code unit}'s file: to a temporary name, then moved into place atomically. */
  static void write(Path file, Unit unit, byte[] bytes) throws IOException {
    Path tmp =
        file.resolveSibling(
            file.getFileName() + "." + Thread.currentThread().getId() + TEMP_SUFFIX);
    byte[] header = header(unit);
    try (var out = Files.newOutputStream(tmp)) {
      out.write(header);
      out.write(bytes);
    }
    try {
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      Files.deleteIfExists(tmp);
      throw e;
    }
  }

  /** Reads and checks the header of {@code file}, and that its length fits it. */
  static Header readHeader(Path file) throws IOException {
    long length = Files.size(file);
    try (InputStream in = Files.newInputStream(file)) {
      Header h = parse(new DataInputStream(in), file);
      if (length != h.length() + h.unit().size()) {
        throw new BadFileException(
            CacheEvent.Kind.TRUNCATED,
            h.unit().key(),
            file.getFileName()
                + " is "
                + length
                + " bytes; its header says "
                + (h.length() + h.unit().size()));
      }
      if (!file.equals(
          path(java.util.Objects.requireNonNull(file.getParent(), "parent"), h.unit()))) {
        throw new BadFileException(
            CacheEvent.Kind.FOREIGN,
            h.unit().key(),
            file.getFileName() + " holds " + h.unit() + ", which is not the unit of its name");
      }
      return h;
    }
  }

  /**
   * The bytes of {@code unit} from {@code file}, checked: the header names exactly {@code unit},
   * the length fits, and the bytes hash to the signed SHA-256.
   */
  static byte[] read(Path file, Unit unit) throws IOException {
    byte[] all = Files.readAllBytes(file);
    Header h;
    try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(all))) {
      h = parse(in, file);
    }
    if (!h.unit().equals(unit)) {
      throw new BadFileException(
          CacheEvent.Kind.FOREIGN,
          unit.key(),
          file.getFileName() + " holds " + h.unit() + ", not " + unit);
    }
    if (all.length != h.length() + unit.size()) {
      throw new BadFileException(
          CacheEvent.Kind.TRUNCATED,
          unit.key(),
          file.getFileName()
              + " is "
              + all.length
              + " bytes; "
              + unit
              + " needs "
              + (h.length() + unit.size()));
    }
    byte[] bytes = Arrays.copyOfRange(all, h.length(), all.length);
    if (!MessageDigest.isEqual(sha256(bytes), unit.sha256())) {
      throw new BadFileException(
          CacheEvent.Kind.CORRUPT,
          unit.key(),
          file.getFileName() + ": the bytes of " + unit + " do not match its signed SHA-256");
    }
    return bytes;
  }

  private static Header parse(DataInputStream in, Path file) throws IOException {
    String name = String.valueOf(file.getFileName());
    try {
      byte[] magic = new byte[4];
      in.readFully(magic);
      if (!Arrays.equals(magic, MAGIC)) {
        throw new BadFileException(CacheEvent.Kind.FOREIGN, "", name + " is not a cache unit file");
      }
      int format = in.readUnsignedByte();
      if (format != FORMAT) {
        throw new BadFileException(
            CacheEvent.Kind.FOREIGN, "", name + " has unknown format " + format);
      }
      int keyLength = in.readUnsignedShort();
      if (keyLength < 1 || keyLength > 1024) {
        throw new BadFileException(
            CacheEvent.Kind.FOREIGN, "", name + " names a key of " + keyLength + " bytes");
      }
      String key = new String(in.readNBytes(keyLength), StandardCharsets.UTF_8);
      long timestamp = in.readLong();
      int writerLength = in.readUnsignedByte();
      if (writerLength < 1 || writerLength > 64) {
        throw new BadFileException(
            CacheEvent.Kind.FOREIGN, key, name + " names a writer of " + writerLength + " bytes");
      }
      String writer = new String(in.readNBytes(writerLength), StandardCharsets.US_ASCII);
      long incarnation = in.readLong();
      int part = in.readInt();
      byte[] sha = new byte[32];
      in.readFully(sha);
      long size = in.readLong();
      Unit unit;
      try {
        unit = new Unit(key, new Version(timestamp, writer, incarnation), part, sha, size);
      } catch (IllegalArgumentException e) {
        throw new BadFileException(CacheEvent.Kind.FOREIGN, key, name + ": " + e.getMessage());
      }
      return new Header(unit, 4 + 1 + 2 + keyLength + 8 + 1 + writerLength + 8 + 4 + 32 + 8);
    } catch (EOFException e) {
      throw new BadFileException(CacheEvent.Kind.TRUNCATED, "", name + " ends inside its header");
    }
  }

  static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
