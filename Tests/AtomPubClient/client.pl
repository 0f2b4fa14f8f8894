#!/usr/bin/perl
# Drives Diary's AtomPub with Debian's Atompub::Client (libatompub-perl), as a client written
# for Hatena Blog would: discover the service, create, read, update, list, page, a draft,
# delete. Usage: client.pl BASE_URL USER TOKEN READ_TOKEN. Dies with the reason on any
# mismatch; prints one "ok" line per step. Run by Tests/EndToEndTests/AtomPubClientTests.swift.
use strict;
use warnings;
use utf8;
use Atompub::Client;
use LWP::UserAgent;
use MIME::Base64 qw(encode_base64);
use Encode qw(encode_utf8 decode_utf8);

my ($base, $user, $token, $read_token) = @ARGV;
die "usage: client.pl BASE_URL USER TOKEN READ_TOKEN\n" unless $read_token;

sub basic_client {
    my ($secret) = @_;
    my $client = Atompub::Client->new;
    $client->ua->default_header(Authorization => 'Basic ' . encode_base64(encode_utf8("$user:$secret"), ''));
    return $client;
}

sub ok { print "ok $_[0]\n" }

# An entry as Hatena Blog's documentation writes one, Markdown as text/x-markdown.
sub entry_xml {
    my (%f) = @_;
    my $categories = join '', map { qq{<category term="$_" />} } @{ $f{tags} };
    my $updated = $f{updated} ? "<updated>$f{updated}</updated>" : '';
    return XML::Atom::Entry->new(\ encode_utf8(<<"XML"));
<?xml version="1.0" encoding="utf-8"?>
<entry xmlns="http://www.w3.org/2005/Atom" xmlns:app="http://www.w3.org/2007/app">
  <title>$f{title}</title>
  <author><name>$user</name></author>
  <content type="text/x-markdown">$f{body}</content>
  $updated
  $categories
  <app:control><app:draft>$f{draft}</app:draft></app:control>
</entry>
XML
}

my $client = basic_client($token);

# Discover: the service document lists the caller's diary as a collection of entries.
my $service = $client->getService("$base/atom") or die 'getService: ' . $client->errstr;
my ($workspace) = $service->workspaces;
my ($collection) = $workspace->collections or die 'no collection';
my $collection_uri = $collection->href;
die "collection $collection_uri" unless $collection_uri =~ m{^\Q$base\E/atom/diaries/\d+/entry$};
die 'accept' unless join(',', $collection->accepts) =~ m{application/atom\+xml;type=entry};
ok 'discover';

# Create, then read back.
my $uri = $client->createEntry($collection_uri, entry_xml(
    title => '紅葉 &amp; AtomPub', body => "**Red** leaves &lt;3\n\nsecond paragraph", tags => ['Travel', '京都'],
    updated => '2026-11-01T09:30:00+09:00', draft => 'no',
)) or die 'createEntry: ' . $client->errstr;
die "Location $uri" unless $uri =~ m{^\Q$collection_uri\E/\d+$};
ok 'create';
my $entry = $client->getEntry($uri) or die 'getEntry: ' . $client->errstr;
die 'title ' . $entry->title unless decode_utf8($entry->title) eq '紅葉 & AtomPub';
die 'content ' . $entry->content->body unless decode_utf8($entry->content->body) eq "**Red** leaves <3\n\nsecond paragraph";
die 'content type ' . $entry->content->type unless $entry->content->type eq 'text/x-markdown';
die 'updated ' . $entry->updated unless $entry->updated eq '2026-11-01T00:30:00Z';
my @terms = sort map { decode_utf8($_->term) } $entry->category;
die "categories @terms" unless "@terms" eq 'travel 京都';
my ($alternate) = grep { $_->rel eq 'alternate' } $entry->link;
die 'alternate' unless $alternate && $alternate->href =~ m{^\Q$base\E/entries/\d+$};
my ($edit) = grep { $_->rel eq 'edit' } $entry->link;
die 'edit' unless $edit && $edit->href eq $uri;
ok 'read';

# Replace (with the If-Match the client keeps from its read).
$client->updateEntry($uri, entry_xml(title => 'Updated title', body => 'new body', tags => ['autumn'], draft => 'no'))
    or die 'updateEntry: ' . $client->errstr;
$entry = $client->getEntry($uri) or die 'getEntry after update: ' . $client->errstr;
die 'updated title ' . $entry->title unless $entry->title eq 'Updated title';
die 'updated body' unless $entry->content->body eq 'new body';
die 'kept date ' . $entry->updated unless $entry->updated eq '2026-11-01T00:30:00Z';
ok 'update';

# A draft: in the caller's collection marked as one, in no public feed.
my $draft_uri = $client->createEntry($collection_uri, entry_xml(title => 'Draft only', body => 'not yet', tags => [], draft => 'yes'))
    or die 'createEntry draft: ' . $client->errstr;
my $draft = $client->getEntry($draft_uri) or die 'getEntry draft: ' . $client->errstr;
die 'draft flag' unless $draft->as_xml =~ m{<app:draft>yes</app:draft>};
my $public = LWP::UserAgent->new->get("$base/feed.atom");
die 'public feed ' . $public->status_line unless $public->is_success;
die 'draft in public feed' if $public->decoded_content =~ /Draft only/;
ok 'draft';

# List and page: 21 more entries make two pages, followed by rel="next".
for my $n (1 .. 21) {
    $client->createEntry($collection_uri, entry_xml(title => "Entry $n", body => "body $n", tags => [], draft => 'no'))
        or die "createEntry $n: " . $client->errstr;
}
my (@titles, %seen_pages);
my $page_uri = $collection_uri;
while ($page_uri) {
    die "page loop at $page_uri" if $seen_pages{$page_uri}++;
    my $feed = $client->getFeed($page_uri) or die 'getFeed: ' . $client->errstr;
    push @titles, map { $_->title } $feed->entries;
    my ($next) = grep { $_->rel eq 'next' } $feed->link;
    $page_uri = $next ? $next->href : undef;
}
die 'pages ' . scalar(keys %seen_pages) unless keys %seen_pages == 2;
die 'listed ' . scalar(@titles) unless @titles == 23;
die "newest first: $titles[0]" unless $titles[0] eq 'Entry 21';
die 'draft listed for its owner' unless grep { $_ eq 'Draft only' } @titles;
ok 'list';

# The client as Hatena's users set it up, user name and password: it sends WSSE, Diary's 401
# asks for Basic, and LWP answers the challenge with the same credentials, then sends Basic
# with every request under the service document's folder. A read token reads but cannot write.
my $reader = Atompub::Client->new;
$reader->username($user);
$reader->password($read_token);
$reader->getService("$base/atom") or die 'read token getService: ' . $reader->errstr;
$reader->getEntry($uri) or die 'read token getEntry: ' . $reader->errstr;
$reader->createEntry($collection_uri, entry_xml(title => 'Nope', body => 'x', tags => [], draft => 'no'))
    and die 'a read token created an entry';
die 'read token status ' . $reader->res->code unless $reader->res->code == 403;
ok 'scopes';

# Delete: gone for its owner too.
$client->deleteEntry($uri) or die 'deleteEntry: ' . $client->errstr;
$client->getEntry($uri) and die 'deleted entry still read';
die 'deleted status ' . $client->res->code unless $client->res->code == 404;
ok 'delete';
