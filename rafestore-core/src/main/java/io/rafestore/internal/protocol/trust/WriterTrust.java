package io.rafestore.internal.protocol.trust;

import java.security.PublicKey;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Is writer w trusted now, with which public key, and if not, why: the trust readM needs, behind
 * one small interface so that readM may ask for the writers it knows ({@link #known}) or for each
 * writer a listing of a key names ({@link #check}). Implementations are thread-safe; their futures
 * complete on any thread and never block it.
 */
public interface WriterTrust {
  /**
   * The verdict on {@code writerId} now: trusted with a key, or refused with the reason. Fails only
   * when the trust data cannot be read at all (more than f clouds failed to answer for a
   * certificate or a revocation list: a {@code QuorumException}).
   */
  CompletableFuture<Verdict> check(String writerId);

  /**
   * The verdict on {@code writerId} this trust holds without reading anything (an explicit writer,
   * one its current snapshot certifies or revokes, one a {@link #check} trusted since), or null if
   * finding it needs a read of the clouds.
   */
  default Verdict held(String writerId) {
    return null;
  }

  /**
   * {@link #known}, as of a reading of the trust data begun at or after {@code nanos} (on the
   * settings' scheduler's clock): every writer certified before then is in it. Starts such a
   * reading if none is under way or done; these forced readings begin at most one per {@link
   * #FORCED_REFRESH_GAP} (or per refresh interval, if shorter), so the caller may wait up to that
   * long. What a listing readM waits for when one cloud lists more unknown writers than it may
   * check one by one (design.md section 5, "readM with many writers").
   */
  default CompletableFuture<Map<String, Verdict>> knownAfter(long nanos) {
    return known();
  }

  /** The least time between two readings of the trust data forced by {@link #knownAfter}. */
  java.time.Duration FORCED_REFRESH_GAP = java.time.Duration.ofSeconds(1);

  /**
   * Every writer trusted now that this client knows of without listing a key (the explicitly
   * trusted ones, and the certified ones whose certificates are on the clouds), with its verdict.
   * Completes at once unless the certified writers are due to be read again.
   */
  CompletableFuture<Map<String, Verdict>> known();

  /**
   * The key the latest verdict trusted {@code writerId} under, or null: for checks that follow a
   * readM of this client (a sealed value's key shares), which trusted the writer just before.
   */
  PublicKey keyOf(String writerId);

  /**
   * Whether trust can change while the client runs (operator keys are configured). If not, {@link
   * #known} is the explicit writers, already complete, and {@link #check} refuses every other one.
   */
  boolean certifies();

  /**
   * Told that a log of {@code writerId} was refused under the certificate this client holds (an
   * entry created after it expired): the certificate may have been renewed, so the next {@link
   * #known} or {@link #check} reads it again.
   */
  default void suspect(String writerId) {}

  /** Trust in exactly the writers of {@code explicit}, by their keys; nothing certified. */
  static WriterTrust explicit(Map<String, PublicKey> explicit) {
    Map<String, Verdict> verdicts = new LinkedHashMap<>();
    explicit.forEach((w, k) -> verdicts.put(w, Verdict.explicit(w, k)));
    Map<String, Verdict> all = Map.copyOf(verdicts);
    CompletableFuture<Map<String, Verdict>> done = CompletableFuture.completedFuture(all);
    return new WriterTrust() {
      @Override
      public CompletableFuture<Verdict> check(String writerId) {
        Verdict v = all.get(writerId);
        return CompletableFuture.completedFuture(
            v != null ? v : Verdict.notCertified(writerId, "not a trusted writer of this client"));
      }

      @Override
      public CompletableFuture<Map<String, Verdict>> known() {
        return done;
      }

      @Override
      public boolean certifies() {
        return false;
      }

      @Override
      public PublicKey keyOf(String writerId) {
        return explicit.get(writerId);
      }
    };
  }
}
