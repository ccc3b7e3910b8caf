package io.rafestore;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The write-back journal could not take or give back a write: it is full, its disk failed (full,
 * read-only, an I/O error), or a record in it is corrupt. Names the file or directory and the
 * cause.
 */
public class JournalException extends RafeStoreException {
  private static final long serialVersionUID = 1L;

  /** Why the journal failed. */
  public enum Reason {
    /** The journal's bound is reached (or one value is larger than the bound). */
    FULL,
    /** Reading or writing the journal's disk failed: full, read-only, or another I/O error. */
    IO,
    /**
     * A record that may have been acknowledged fails its checksum or does not parse: not the torn
     * tail of a crash, which is ignored.
     */
    CORRUPT,
    /** The client was closed (the journal keeps the write for the next client). */
    CLOSED,
    /** Another client (in this process or another) has the journal open. */
    IN_USE
  }

  private final Reason reason;
  private final transient Path path;

  public JournalException(Reason reason, Path path, String message, Throwable cause) {
    super("write-back journal " + path + ": " + message, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.path = Objects.requireNonNull(path, "path");
  }

  public JournalException(Reason reason, Path path, String message) {
    this(reason, path, message, null);
  }

  public Reason reason() {
    return reason;
  }

  /** The journal directory or file concerned. */
  public Path path() {
    return path;
  }
}
