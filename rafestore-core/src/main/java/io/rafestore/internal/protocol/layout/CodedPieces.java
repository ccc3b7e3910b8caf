package io.rafestore.internal.protocol.layout;

import io.rafestore.internal.codec.MalformedInputException;
import io.rafestore.internal.codec.ReedSolomon;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.codec.Shamir;
import io.rafestore.internal.protocol.metadata.LogEntry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Rebuilds the piece a holder of a coded value lost, from k hash-valid pieces of the others, for
 * repair. The rebuilt piece must hash to what the signed entry lists for that holder, so repair can
 * only ever put back exactly what the writer stored.
 *
 * <ul>
 *   <li>Reed-Solomon ({@link ReedSolomonLayout}): decode the stored value from k fragments,
 *       re-encode, take fragment i.
 *   <li>DepSky-CA ({@link DepSkyLayout}): a piece is a key share followed by a fragment of the
 *       ciphertext. The fragment is rebuilt as above; share i is the value at x = i+1 of the
 *       polynomials the k shares fix ({@link Shamir#shareAt}), so the repairer learns nothing it
 *       could not already compute (with k shares it could recover the key itself).
 * </ul>
 */
public final class CodedPieces {
  private CodedPieces() {}

  /** A DepSky-CA piece: a key share, then a fragment of the ciphertext. */
  public record Piece(Shamir.Share share, byte[] fragment) {}

  /** A DepSky-CA piece: the key share's encoding followed by the fragment. */
  public static byte[] join(Shamir.Share share, byte[] fragment) {
    byte[] s = share.toBytes();
    byte[] piece = new byte[s.length + fragment.length];
    System.arraycopy(s, 0, piece, 0, s.length);
    System.arraycopy(fragment, 0, piece, s.length, fragment.length);
    return piece;
  }

  /**
   * Splits a DepSky-CA piece into its key share and fragment (the inverse of {@link #join}).
   *
   * @throws MalformedInputException if the share part is malformed
   */
  public static Piece split(byte[] piece) throws MalformedInputException {
    ByteBuffer in = ByteBuffer.wrap(piece);
    Shamir.Share share = Shamir.Share.read(in);
    byte[] fragment = new byte[in.remaining()];
    in.get(fragment);
    return new Piece(share, fragment);
  }

  /**
   * Piece {@code target} of the coded entry {@code entry} (Reed-Solomon or DepSky-CA, as its layout
   * stores it), from {@code valid} (holder index to a piece whose hash matched), which must hold at
   * least k pieces.
   *
   * @throws MalformedInputException if the pieces do not rebuild a piece with the signed hash
   * @throws IllegalArgumentException if the entry is not coded
   */
  public static byte[] rebuild(LogEntry entry, Map<Integer, byte[]> valid, int target)
      throws MalformedInputException {
    if (!(Layouts.stored(entry) instanceof CodedLayout coded)) {
      throw new IllegalArgumentException("not a coded entry");
    }
    return coded.rebuild(valid, target);
  }

  /**
   * Piece {@code target} of {@code entry} from {@code valid}: the stored value ({@code
   * storedLength} bytes) decoded from k fragments and re-encoded; with {@code withShares} (a
   * DepSky-CA piece) the share at x = target + 1 rebuilt from k shares goes in front.
   */
  static byte[] rebuild(
      LogEntry entry, Map<Integer, byte[]> valid, int target, boolean withShares, long storedLength)
      throws MalformedInputException {
    int n = entry.holders().size();
    int k = entry.k();
    if (valid.size() < k) {
      throw new MalformedInputException(
          "only " + valid.size() + " valid pieces, " + k + " needed to rebuild one");
    }
    byte[][] fragments = new byte[n][];
    List<Shamir.Share> shares = new ArrayList<>();
    for (Map.Entry<Integer, byte[]> e : valid.entrySet()) {
      if (withShares) {
        Piece p = split(e.getValue());
        shares.add(p.share());
        fragments[e.getKey()] = p.fragment();
      } else {
        fragments[e.getKey()] = e.getValue();
      }
    }
    byte[] piece;
    try {
      ReedSolomon code = ReedSolomon.of(k, n - k);
      byte[] stored = code.decode(fragments, Math.toIntExact(storedLength));
      byte[] fragment = code.encode(stored)[target];
      if (withShares) {
        piece = join(Shamir.shareAt(shares.subList(0, k), target + 1), fragment);
      } else {
        piece = fragment;
      }
    } catch (RuntimeException e) {
      throw new MalformedInputException("cannot rebuild piece " + target + ": " + e.getMessage());
    }
    if (!Sha256.matches(piece, entry.pieceHashUnsafe(target))) {
      throw new MalformedInputException(
          "the rebuilt piece " + target + " does not match its signed hash");
    }
    return piece;
  }

  /** Binds a DepSky-CA ciphertext to its key, version and writer, so pieces cannot be swapped. */
  public static byte[] associatedData(String key, long ts, String writer) {
    byte[] k = key.getBytes(StandardCharsets.UTF_8);
    byte[] w = writer.getBytes(StandardCharsets.US_ASCII);
    return ByteBuffer.allocate(4 + k.length + 8 + w.length)
        .putInt(k.length)
        .put(k)
        .putLong(ts)
        .put(w)
        .array();
  }
}
