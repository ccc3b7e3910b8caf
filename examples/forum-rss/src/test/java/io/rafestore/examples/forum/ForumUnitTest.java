package io.rafestore.examples.forum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The pieces without HTTP: escaping, form decoding, the stored formats, options. */
class ForumUnitTest {

  @Test
  void escapeCoversEveryCharacterThatCanLeaveTextOrAnAttribute() {
    assertThat(Html.escape("a&b<c>d\"e'f")).isEqualTo("a&amp;b&lt;c&gt;d&quot;e&#39;f");
    assertThat(Html.escape("plain ünïcode")).isEqualTo("plain ünïcode");
    assertThat(Html.pathSegment("a/b?c#d\"")).isEqualTo("a%2Fb%3Fc%23d%22");
  }

  @Test
  void formDecodesPercentEscapesPlusAndUtf8() throws Exception {
    Form f = Form.parse(ascii("author=J%C3%BCrgen+K&body=1%2B1%3D2&&empty="));
    assertThat(f.get("author")).hasValue("Jürgen K");
    assertThat(f.get("body")).hasValue("1+1=2");
    assertThat(f.get("empty")).hasValue("");
    assertThat(f.get("missing")).isEmpty();
  }

  @Test
  void formRejectsWhatABrowserWouldNeverSendNamingTheField() {
    assertThatThrownBy(() -> Form.parse(ascii("body=%C3")))
        .isInstanceOf(BadRequest.class)
        .hasMessage("field 'body' is not valid UTF-8");
    assertThatThrownBy(() -> Form.parse(ascii("body=%G1")))
        .hasMessageContaining("field 'body' has a malformed %-escape '%G1'");
    assertThatThrownBy(() -> Form.parse(ascii("body=%4")))
        .hasMessageContaining("field 'body' has a truncated %-escape");
    assertThatThrownBy(() -> Form.parse("body=é".getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("field 'body' contains a character that a form body must %-escape");
    assertThatThrownBy(() -> Form.parse(ascii("a=1&a=2")))
        .hasMessage("field 'a' is given more than once");
  }

  @Test
  void fieldsAreTrimmedNormalisedAndBounded() throws Exception {
    assertThat(Fields.body(Optional.of("  a\r\nb\rc\t \n"))).isEqualTo("a\nb\nc");
    assertThat(Fields.author(Optional.of(" ann "))).isEqualTo("ann");
    // Lengths count code points: 40 emoji are 80 chars but a valid name.
    assertThat(Fields.author(Optional.of("😀".repeat(40)))).hasSize(80);
    assertThatThrownBy(() -> Fields.author(Optional.of("😀".repeat(41))))
        .hasMessage("field 'author' has 41 characters; at most 40 are allowed");
    assertThatThrownBy(() -> Fields.title(Optional.of("a\u2028b")))
        .hasMessageContaining("field 'title' must be one line");
    assertThat(Fields.topicId("a-1")).isEqualTo("a-1");
    for (String bad : new String[] {"", "-a", "a-", "A", "a_b", "a.b", "..", "a".repeat(65)}) {
      assertThatThrownBy(() -> Fields.topicId(bad)).as(bad).hasMessageContaining("topic id");
    }
  }

  @Test
  void postsAndTopicEntriesRoundTripAndForeignValuesAreRefused() {
    Post p = new Post("ann", "line 1\nline 2 <b>");
    assertThat(Post.decode(p.encode())).isEqualTo(p);
    assertThat(new String(p.encode(), StandardCharsets.UTF_8))
        .isEqualTo("rafestore-forum-post/1\nann\nline 1\nline 2 <b>");
    TopicEntry t = new TopicEntry("cakes-abc234", "Cakes & ales");
    assertThat(TopicEntry.decode(t.encode())).isEqualTo(t);

    assertThatThrownBy(() -> Post.decode(ascii("hello"))).hasMessageContaining("not a forum post");
    assertThatThrownBy(() -> Post.decode(ascii("rafestore-forum-post/1\nann")))
        .hasMessageContaining("without a body");
    assertThatThrownBy(() -> Post.decode(ascii("rafestore-forum-post/1\n\nbody")))
        .hasMessageContaining("field 'author' is empty");
    assertThatThrownBy(() -> Post.decode(new byte[] {(byte) 0xff}))
        .hasMessageContaining("not valid UTF-8");
    assertThatThrownBy(() -> TopicEntry.decode(ascii("rafestore-forum-topic/1\nBAD ID\nt")))
        .hasMessageContaining("topic id");
  }

  @Test
  void newTopicIdsAreSlugsWithARandomSuffix() {
    java.util.Random random = new java.util.Random(7);
    assertThat(Forum.newId("Hello, World! 2026", random)).matches("hello-world-2026-[a-z2-9]{6}");
    assertThat(Forum.newId("日本語", random)).matches("topic-[a-z2-9]{6}");
    assertThat(Forum.newId("x".repeat(100), random)).matches("x{40}-[a-z2-9]{6}");
    assertThat(Forum.newId("same", random)).isNotEqualTo(Forum.newId("same", random));
  }

  @Test
  void optionsNameWhatIsWrong() {
    assertThat(ForumApp.Options.parse()).isEqualTo(new ForumApp.Options(8080, Optional.empty()));
    assertThat(ForumApp.Options.parse("--port", "0", "--data", "d"))
        .isEqualTo(new ForumApp.Options(0, Optional.of(Path.of("d"))));
    assertThat(ForumApp.Options.parse("--help").help()).isTrue();
    assertThatThrownBy(() -> ForumApp.Options.parse("--port", "x"))
        .hasMessage("--port must be a number, was 'x'");
    assertThatThrownBy(() -> ForumApp.Options.parse("--port", "70000"))
        .hasMessage("--port must be 0 to 65535, was 70000");
    assertThatThrownBy(() -> ForumApp.Options.parse("--data")).hasMessage("--data needs a value");
    assertThatThrownBy(() -> ForumApp.Options.parse("--nope"))
        .hasMessageContaining("unknown option '--nope'");
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
