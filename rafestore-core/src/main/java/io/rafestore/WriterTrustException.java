package io.rafestore;

import java.util.Objects;

/**
 * A writer is not trusted, or a certificate or revocation list is not acceptable, and why ({@link
 * #reason()}). Thrown (or completing a future) when a certificate or revocation list is parsed or
 * checked, when a writer whose own certificate is not valid now tries to write, and by {@link
 * RafeStore#checkWriter}; a reader that ignores a writer's log for one of these reasons tells the
 * listener ({@link RafeStoreListener#writerRejected}). Immutable.
 */
public class WriterTrustException extends RafeStoreException {
  private static final long serialVersionUID = 1L;

  /** Why a writer, certificate or revocation list was refused. */
  public enum Reason {
    /** The bytes are not a certificate or revocation list of a known format (cut, bad length). */
    MALFORMED,
    /** Signed by an operator key id this client does not trust. */
    UNKNOWN_OPERATOR,
    /** The operator's signature does not verify (forged or altered). */
    BAD_SIGNATURE,
    /** The certificate names another writer id than the one it is used for. */
    WRONG_WRITER,
    /** The certificate certifies another public key than the writer's. */
    WRONG_KEY,
    /** The certificate's validity starts after now. */
    NOT_YET_VALID,
    /** The certificate's validity ended (or a log holds an entry created after it ended). */
    EXPIRED,
    /** An operator's revocation list names the writer. */
    REVOKED,
    /** Neither trusted explicitly nor holding a certificate on a quorum of clouds. */
    NOT_CERTIFIED,
    /** A revocation list older than (or forking) the newest one this client has seen. */
    STALE
  }

  private final Reason reason;
  private final String writerId;

  /**
   * @param reason why
   * @param writerId the writer concerned, or null (a revocation list, an unnamed certificate)
   * @param message what was wrong, naming the setting or the object
   */
  public WriterTrustException(Reason reason, String writerId, String message) {
    super(
        Objects.requireNonNull(reason, "reason")
            + (writerId == null ? "" : " (writer " + writerId + ")")
            + ": "
            + message);
    this.reason = reason;
    this.writerId = writerId;
  }

  /** Why. */
  public Reason reason() {
    return reason;
  }

  /** The writer concerned, or null. */
  public String writerId() {
    return writerId;
  }
}
