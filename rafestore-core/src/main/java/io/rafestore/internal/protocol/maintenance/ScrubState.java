package io.rafestore.internal.protocol.maintenance;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The scrubber's state file: where to resume (the store it was for, the pass and the last key
 * finished in it) and the counters, so that a restarted scrubber goes on where it stopped.
 *
 * <p>Format (UTF-8 text, version 1): a first line {@code rafestore-scrub-state 1}, one {@code
 * name=value} line per field in a fixed order (the cursor as the hex of the key's UTF-8 bytes, or
 * {@code -}), and a last line {@code sha256=} the hex SHA-256 of every byte before it. Anything
 * else (a missing or extra line, a bad number, a checksum that does not match: a torn or edited
 * file) is refused as a whole, and the scrubber starts from the first key. It is written to a
 * temporary file beside it, forced to disk and moved over it atomically, so a crash leaves the old
 * state or the new one, never a mix.
 *
 * <p>The file decides nothing about correctness: verify checks every key it reaches against what
 * trusted writers signed. A wrong cursor can only make the scrubber check keys again or leave some
 * for the next pass.
 *
 * <p>Mutable, not thread-safe: the scrubber guards it.
 */
final class ScrubState {
  static final String MAGIC = "rafestore-scrub-state 1";

  private static final List<String> FIELDS =
      List.of(
          "store",
          "pass",
          "cursor",
          "keysThisPass",
          "keysChecked",
          "passesCompleted",
          "damageFound",
          "repaired",
          "repairFailed",
          "oneFaultFromLoss",
          "lost",
          "requests",
          "egressBytes",
          "dollars");

  String store;
  long pass = 1;
  String cursor;
  long keysThisPass;
  long keysChecked;
  long passesCompleted;
  long damageFound;
  long repaired;
  long repairFailed;
  long oneFaultFromLoss;
  long lost;
  long requests;
  long egressBytes;
  double dollars;

  ScrubState(String store) {
    this.store = store;
  }

  /** What reading a state file gave: a state, or why there is none to resume from. */
  record Loaded(ScrubState state, Optional<String> problem) {}

  /**
   * The state in {@code file} for store {@code store}: a fresh one if there is no file (no
   * problem), or if it cannot be used (the problem says why).
   */
  static Loaded load(Path file, String store) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return new Loaded(new ScrubState(store), Optional.empty());
    } catch (IOException | RuntimeException e) {
      return refused(file, store, "cannot be read: " + e);
    }
    try {
      ScrubState s = parse(bytes);
      if (!s.store.equals(store)) {
        return refused(
            file, store, "is for another store (clouds " + s.store + ", not " + store + ")");
      }
      return new Loaded(s, Optional.empty());
    } catch (IllegalArgumentException e) {
      return refused(file, store, "is corrupt (" + e.getMessage() + ")");
    }
  }

  private static Loaded refused(Path file, String store, String why) {
    return new Loaded(
        new ScrubState(store),
        Optional.of("state file " + file + " " + why + "; scrubbing from the first key"));
  }

  /** Parses a state file's bytes; fails naming the first thing wrong. */
  static ScrubState parse(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.UTF_8);
    int last = text.lastIndexOf("\nsha256=");
    if (last < 0 || !text.endsWith("\n")) {
      throw new IllegalArgumentException("no checksum line");
    }
    String body = text.substring(0, last + 1);
    String sum = text.substring(last + "\nsha256=".length(), text.length() - 1);
    String expected =
        HexFormat.of()
            .formatHex(
                io.rafestore.internal.codec.Sha256.hash(body.getBytes(StandardCharsets.UTF_8)));
    if (!expected.equals(sum)) {
      throw new IllegalArgumentException("checksum does not match");
    }
    String[] lines = body.split("\n", -1);
    // The body ends with a newline, so the split's last element is empty.
    if (lines.length != FIELDS.size() + 2 || !lines[0].equals(MAGIC)) {
      throw new IllegalArgumentException("not a version 1 state file");
    }
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < FIELDS.size(); i++) {
      String line = lines[i + 1];
      String prefix = FIELDS.get(i) + "=";
      if (!line.startsWith(prefix)) {
        throw new IllegalArgumentException("line " + (i + 2) + " is not " + FIELDS.get(i));
      }
      values.put(FIELDS.get(i), line.substring(prefix.length()));
    }
    ScrubState s = new ScrubState(values.get("store"));
    s.pass = count(values, "pass");
    if (s.pass < 1) {
      throw new IllegalArgumentException("pass must be >= 1");
    }
    String c = values.get("cursor");
    if (!c.equals("-")) {
      try {
        s.cursor = new String(HexFormat.of().parseHex(c), StandardCharsets.UTF_8);
        io.rafestore.internal.util.Names.checkKey(s.cursor);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("cursor is not a key");
      }
    }
    s.keysThisPass = count(values, "keysThisPass");
    s.keysChecked = count(values, "keysChecked");
    s.passesCompleted = count(values, "passesCompleted");
    s.damageFound = count(values, "damageFound");
    s.repaired = count(values, "repaired");
    s.repairFailed = count(values, "repairFailed");
    s.oneFaultFromLoss = count(values, "oneFaultFromLoss");
    s.lost = count(values, "lost");
    s.requests = count(values, "requests");
    s.egressBytes = count(values, "egressBytes");
    try {
      s.dollars = Double.parseDouble(values.get("dollars"));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("dollars is not a number");
    }
    if (!(s.dollars >= 0) || Double.isInfinite(s.dollars)) {
      throw new IllegalArgumentException("dollars must be a finite number >= 0");
    }
    return s;
  }

  private static long count(Map<String, String> values, String name) {
    try {
      long v = Long.parseLong(values.get(name));
      if (v < 0) {
        throw new IllegalArgumentException(name + " must be >= 0");
      }
      return v;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " is not a number");
    }
  }

  /** The file's bytes. */
  byte[] encode() {
    StringBuilder b = new StringBuilder(MAGIC).append('\n');
    b.append("store=").append(store).append('\n');
    b.append("pass=").append(pass).append('\n');
    b.append("cursor=")
        .append(
            cursor == null
                ? "-"
                : HexFormat.of().formatHex(cursor.getBytes(StandardCharsets.UTF_8)))
        .append('\n');
    b.append("keysThisPass=").append(keysThisPass).append('\n');
    b.append("keysChecked=").append(keysChecked).append('\n');
    b.append("passesCompleted=").append(passesCompleted).append('\n');
    b.append("damageFound=").append(damageFound).append('\n');
    b.append("repaired=").append(repaired).append('\n');
    b.append("repairFailed=").append(repairFailed).append('\n');
    b.append("oneFaultFromLoss=").append(oneFaultFromLoss).append('\n');
    b.append("lost=").append(lost).append('\n');
    b.append("requests=").append(requests).append('\n');
    b.append("egressBytes=").append(egressBytes).append('\n');
    b.append("dollars=").append(dollars).append('\n');
    String body = b.toString();
    String sum =
        HexFormat.of()
            .formatHex(
                io.rafestore.internal.codec.Sha256.hash(body.getBytes(StandardCharsets.UTF_8)));
    return (body + "sha256=" + sum + "\n").getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Writes this state to {@code file} atomically (a temporary file, forced, then moved over it).
   */
  void save(Path file) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    if (dir != null) {
      Files.createDirectories(dir);
    }
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try (FileChannel ch =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(encode());
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ch.force(true);
    }
    try {
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
