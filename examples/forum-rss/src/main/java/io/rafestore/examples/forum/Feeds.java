package io.rafestore.examples.forum;

import com.rometools.rome.feed.rss.Channel;
import com.rometools.rome.feed.rss.Description;
import com.rometools.rome.feed.rss.Guid;
import com.rometools.rome.feed.rss.Item;
import com.rometools.rome.io.FeedException;
import com.rometools.rome.io.WireFeedOutput;
import java.net.URI;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;

/**
 * Builds a topic's RSS 2.0 feed with ROME.
 *
 * <p>Items are the newest posts first. An item's description is HTML, as RSS readers expect, made
 * by escaping the post's text (and turning line breaks into {@code <br>}): a reader shows the text
 * as text, never as markup. ROME then escapes that HTML once more as XML character data. An item's
 * link and guid are the permanent address of the post on its topic page ({@code #v-<version>}),
 * unique because a version is.
 */
final class Feeds {
  /** Most items in one feed. */
  static final int MAX_ITEMS = 50;

  private Feeds() {}

  /** The feed of {@code topic}, with links under {@code base} (e.g. http://127.0.0.1:8080/). */
  static String rss(Forum.TopicView topic, URI base, int clouds, int f) {
    String topicUrl = base.resolve("topics/" + topic.entry().id()).toString();
    Channel channel = new Channel("rss_2.0");
    channel.setTitle(topic.entry().title() + " - RafeStore forum");
    channel.setLink(topicUrl);
    channel.setDescription(
        "Posts of the topic '"
            + topic.entry().title()
            + "', each a version of one RafeStore key kept on "
            + clouds
            + " clouds (tolerating "
            + f
            + " faulty)");
    channel.setGenerator("RafeStore forum example (ROME)");
    channel.setLanguage("en");
    List<Item> items = new ArrayList<>();
    List<Forum.PostView> posts = topic.posts();
    for (int i = posts.size() - 1; i >= 0 && items.size() < MAX_ITEMS; i--) {
      Forum.PostView p = posts.get(i);
      Item item = new Item();
      String link = topicUrl + "#" + Pages.anchor(p.info().version());
      item.setLink(link);
      Guid guid = new Guid();
      guid.setPermaLink(true);
      guid.setValue(link);
      item.setGuid(guid);
      item.setPubDate(Date.from(p.info().createdAt()));
      Description description = new Description();
      description.setType("text/html");
      if (p.post().isPresent()) {
        item.setTitle("#" + p.number() + " by " + p.post().get().author());
        description.setValue(Html.escape(p.post().get().body()).replace("\n", "<br>\n"));
      } else {
        item.setTitle("#" + p.number() + " (unreadable)");
        description.setValue(Html.escape(p.problem()));
      }
      item.setDescription(description);
      items.add(item);
    }
    channel.setItems(items);
    if (!posts.isEmpty()) {
      Date last = Date.from(posts.get(posts.size() - 1).info().createdAt());
      channel.setPubDate(last);
      channel.setLastBuildDate(last);
    }
    try {
      return new WireFeedOutput().outputString(channel);
    } catch (FeedException e) {
      throw new IllegalStateException("ROME could not write the feed of " + topicUrl, e);
    }
  }
}
