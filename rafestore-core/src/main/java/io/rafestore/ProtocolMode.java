package io.rafestore;

/**
 * Which write protocol a client runs. All modes share the metadata format, the read path and the
 * safety guarantees; they differ in when phases start and so in latency and cost.
 */
public enum ProtocolMode {
  /**
   * The paper's anticipated protocol, faithfully: writeDo sends the value to the f+1 fastest data
   * clouds; readM starts on the first writeDo acknowledgement; when readM ends, writeDf adds data
   * clouds only if fewer than f+1 acknowledgements arrived; then writeM.
   */
  PAPER,
  /**
   * RafeStore's faster mode: readM starts together with writeDo instead of waiting for its first
   * reply, and a client that is the only trusted writer and already knows its own metadata log for
   * the key (it wrote or read the key before in this process) skips readM altogether. Same data
   * placement and writeDf rule as {@link #PAPER}.
   */
  FAST,
  /**
   * The DepSky-A baseline (Bessani et al., EuroSys 2011 / ACM TOS 2013), for comparison: readM,
   * then the value to all n clouds waiting for n - f, then writeM; reads ask every holder at once
   * and return the first value whose hash matches. Phases are strict barriers, as in the papers'
   * pseudo-code. Clouds' data/metadata roles are ignored: every cloud stores the value.
   */
  DEPSKY_A,
  /**
   * The DepSky-CA baseline: as {@link #DEPSKY_A}, but each value is encrypted with AES-256-GCM
   * under a fresh key, the ciphertext erasure-coded into n fragments any f+1 of which decode, and
   * the key Shamir-split so that any f+1 shares recover it; cloud i stores share i and fragment i.
   * No f clouds together can read a value. Reads gather f+1 hash-valid pieces, decode and decrypt.
   */
  DEPSKY_CA
}
