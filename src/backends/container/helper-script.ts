// The workspace helper: the container's main process, a small Perl program (perl-base is part of every
// Debian and Ubuntu image, dev container images included) that serves file operations and commands over
// its stdin/stdout, which the agent holds through one attached Engine API connection. Why a resident
// helper and not an Engine API call per operation: an exec costs three HTTP requests and a runc start
// (20-40 ms here) and an archive request several ms, against well under a millisecond for the same
// work on the local disk; through the helper an operation is one round trip on an open connection.
//
// Its lifetime is the connection's: the container is created with StdinOnce, so when the agent lets go
// of it (session close, exit, even SIGKILL, or a dropped engine connection) the engine closes stdin,
// the helper stops every command it started and exits, and the container stops (it is not removed).
//
// Writes (put): a regular file with one name is overwritten in place and truncated, like the local
// backend's default; a new file, a link or a hard-linked file gets a temporary file renamed over it. Why
// not always the rename: on ext4 (and overlayfs on it) a rename over a file starts writing the new data
// out (auto_da_alloc), which measured 0.5-0.9 ms per write against 0.05-0.08 ms in place, in the same
// container; that was the whole gap to the local backend's write_file.
//
// Freeze (19) and thaw (20), for /apply's one snapshot per decision: SIGSTOP to every process of the
// container but the helper (and an init that is its parent), repeated until a pass finds no process
// it has not stopped and every one it stopped is in state T (a process not yet stopped could have
// sent SIGCONT to one that was), twice in a row; thaw sends SIGCONT to exactly those. A process in
// uninterruptible sleep (D: a vfork parent whose child is stopped, a slow disk) gets SIGSTOP again at
// every pass and stops before it runs any code of its own. Refused (EPERM) when the helper
// is not in the container's own pid namespace, where "every process" would be the host's.
//
// Frames both ways: a 4-byte big-endian length, then the payload. Requests: id (u32), opcode (u8), then
// length-prefixed strings. Answers: id, kind (0 ok, 1 error: errno name and message, 2 command output:
// stream and bytes, 3 command exit: code and signal name), then length-prefixed strings.

export const HELPER_OPS = {
  ping: 1,
  stat: 2,
  lstat: 3,
  readdir: 4,
  read: 5,
  realpath: 6,
  readlink: 7,
  replace: 8,
  mkdir: 9,
  unlink: 10,
  rmdir: 11,
  exec: 12,
  kill: 13,
  rmtree: 14,
  walk: 15,
  chmod: 16,
  readstat: 17,
  swap: 18,
  freeze: 19,
  thaw: 20,
} as const;

export const HELPER_SCRIPT = String.raw`
use strict; use warnings;
use POSIX qw(setsid WNOHANG);
use Cwd qw(realpath);
use File::Path qw(remove_tree);
use Fcntl qw(F_GETFL F_SETFL O_NONBLOCK);
$SIG{PIPE} = 'IGNORE';
pipe(my $wake_r, my $wake_w) or die "pipe: $!"; fcntl($wake_w, F_SETFL, fcntl($wake_w, F_GETFL, 0) | O_NONBLOCK);
$SIG{CHLD} = sub { syswrite($wake_w, 'x'); };
binmode STDIN; binmode STDOUT;
my (%cmds, @timers, %frozen);
my @ERRS = qw(ENOENT EACCES EPERM ENOTDIR EISDIR EEXIST ENOTEMPTY ELOOP EROFS ENOSPC EXDEV EBUSY ENAMETOOLONG EINVAL);
sub now { open(my $u, '<', '/proc/uptime') or return time; my $l = <$u>; close $u; return (split / /, $l)[0]; }
sub out { my ($p) = @_; my $d = pack('N', length $p) . $p; my $o = 0;
  while ($o < length $d) { my $n = syswrite(STDOUT, $d, length($d) - $o, $o);
    if (!defined $n) { next if $!{EINTR} || $!{EAGAIN}; exit 0; } $o += $n; } }
sub ok { my ($id, @f) = @_; out(pack('N C', $id, 0) . join('', map { pack('N/a', defined $_ ? $_ : '') } @f)); }
sub err { my ($id, $what) = @_; my $code = 'EIO'; for my $e (@ERRS) { if ($!{$e}) { $code = $e; last; } }
  out(pack('N C N/a N/a', $id, 1, $code, "$what: $!")); }
sub st { my @s = @_; return ($s[2], $s[3], $s[4], $s[5], $s[7], $s[9]); }
sub procs { my %p; opendir(my $d, '/proc') or return ();
  for my $pid (grep { /^\d+$/ } readdir $d) { open(my $f, '<', "/proc/$pid/stat") or next; my $s = <$f>; close $f;
    next unless defined $s && $s =~ /\)\s+\S+\s+(\d+)\s+(\d+)\s+(\d+)/; $p{$pid} = [$1, $2, $3]; }
  closedir $d; return %p; }
sub tree { my ($root) = @_; my %p = procs(); my %kids; push @{$kids{$p{$_}[0]}}, $_ for keys %p;
  my %in; my @q = ($root); while (@q) { my $x = shift @q; next if $in{$x}++; push @q, @{$kids{$x} || []}; }
  for (keys %p) { $in{$_} = 1 if $p{$_}[1] == $root || $p{$_}[2] == $root; }
  delete $in{$$}; delete $in{1}; return grep { exists $p{$_} } keys %in; }
sub pstate { open(my $f, '<', "/proc/$_[0]/stat") or return ''; my $s = <$f>; close $f;
  return defined $s && $s =~ /\)\s+(\S)/ ? $1 : ''; }
sub freeze { unless ($$ == 1 || getppid() == 1) { $! = 1; return 0; } my $quiet = 0;
  for my $round (1 .. 500) { my %p = procs(); my $busy = 0;
    for my $pid (keys %p) { next if $pid == $$ || ($pid == 1 && $$ != 1);
      my $st = pstate($pid); next if $st eq 'Z' || $st eq 'X' || $st eq '';
      if ($st eq 'D') { kill('STOP', $pid) and $frozen{$pid} = 1; next; }
      if (!$frozen{$pid} || ($st ne 'T' && $st ne 't')) { $busy = 1; kill('STOP', $pid) and $frozen{$pid} = 1; } }
    $quiet = $busy ? 0 : $quiet + 1; return 1 if $quiet >= 2; select(undef, undef, undef, 0.002); }
  $! = 16; return 0; }
sub thaw { my @p = keys %frozen; kill('CONT', @p) if @p; %frozen = (); }
sub kill_tree { my ($pid, $sig) = @_; my @t = tree($pid); kill($sig, -$pid); kill($sig, @t) if @t; }
sub walk { my ($dir, $rel, $acc) = @_; opendir(my $d, $dir) or return;
  for my $n (sort grep { $_ ne '.' && $_ ne '..' } readdir $d) { my $p = "$dir/$n"; my @s = lstat $p or next;
    my $r = $rel eq '' ? $n : "$rel/$n"; my $link = -l _ ? readlink($p) : '';
    push @$acc, $r, $s[2], $s[7], $s[9], defined $link ? $link : '';
    walk($p, $r, $acc) if -d _; }
  closedir $d; }
sub run { my ($id, $cmd, $cwd, $flags) = @_; my $merge = $flags & 1;
  my ($or, $ow, $er, $ew); pipe($or, $ow) or return err($id, 'pipe'); if (!$merge) { pipe($er, $ew) or return err($id, 'pipe'); }
  my $pid = fork(); return err($id, 'fork') unless defined $pid;
  if ($pid == 0) { $SIG{PIPE} = 'DEFAULT'; setsid(); open(STDIN, '<', '/dev/null'); open(STDOUT, '>&', $ow);
    open(STDERR, '>&', $merge ? $ow : $ew); close $or; close $er if $er;
    if (!chdir $cwd) { print STDERR "working directory does not exist: $cwd\n"; POSIX::_exit(127); }
    my $sh = -x '/bin/bash' ? '/bin/bash' : '/bin/sh'; { no warnings 'exec'; exec { $sh } $sh, '-c', $cmd; } POSIX::_exit(127); }
  close $ow; close $ew if $ew;
  $cmds{$id} = { pid => $pid, fh => { 1 => $or, ($er ? (2 => $er) : ()) }, bg => ($flags & 2) };
  ok($id, $pid); }
sub finish { my ($id) = @_; my $c = delete $cmds{$id}; close $_ for values %{$c->{fh}};
  my $s = $c->{status}; my ($code, $sig) = (($s & 127) ? '' : ($s >> 8), ($s & 127) ? ($s & 127) : '');
  out(pack('N C N/a N/a', $id, 3, $code, $sig)); }
sub fields { my ($m) = @_; my ($id, $op) = unpack('N C', $m); my @f; my $o = 5;
  while ($o + 4 <= length $m) { my $l = unpack('N', substr($m, $o, 4)); push @f, substr($m, $o + 4, $l); $o += 4 + $l; }
  return ($id, $op, @f); }
sub overwrite { my ($p, $data) = @_; sysopen(my $f, $p, POSIX::O_WRONLY()) or return undef; binmode $f;
  my ($off, $n) = (0, length $data);
  while ($off < $n) { my $w = syswrite($f, $data, $n - $off, $off); if (!defined $w || $w == 0) { my $e = $!; close $f; $! = $e; return 0; } $off += $w; }
  if (!truncate($f, $n)) { my $e = $!; close $f; $! = $e; return 0; }
  return close($f) ? 1 : 0; }
sub put { my ($p, $data, $mode) = @_;
  my @l = lstat $p; if (@l && -f _ && $l[3] == 1) { my $r = overwrite($p, $data); return $r if defined $r; }
  (my $dir = $p) =~ s{/[^/]*$}{}; $dir = '/' if $dir eq '';
  (my $base = $p) =~ s{.*/}{}; my $tmp = "$dir/." . substr($base, 0, 200) . ".deep-acp-$$-" . int(rand(1e9)) . '.tmp';
  my $m = $mode eq '' ? 0666 : (oct($mode) & 07777); my $f;
  sysopen($f, $tmp, POSIX::O_WRONLY() | POSIX::O_CREAT() | POSIX::O_EXCL(), $m) or return 0;
  binmode $f; my $okw = (print {$f} $data); my $okc = close $f;
  if (!$okw || !$okc) { my $e = $!; unlink $tmp; $! = $e; return 0; }
  chmod($m, $tmp) if $mode ne '';
  if (!rename($tmp, $p)) { my $e = $!; unlink $tmp; $! = $e; return 0; }
  return 1; }
sub handle { my ($id, $op, @a) = @_; my $p = $a[0];
  if ($op == 1) { return ok($id, $<, (grep { -x "$_/rg" } split(/:/, $ENV{PATH} || '/usr/bin:/bin')) ? 1 : 0); }
  if ($op == 2) { my @s = stat $p or return err($id, $p); return ok($id, st(@s)); }
  if ($op == 3) { my @s = lstat $p or return err($id, $p); return ok($id, st(@s)); }
  if ($op == 4) { opendir(my $d, $p) or return err($id, $p); my @f;
    for my $n (grep { $_ ne '.' && $_ ne '..' } readdir $d) { my @s = lstat "$p/$n" or next; push @f, $n, $s[2], $s[7], $s[9]; }
    closedir $d; return ok($id, @f); }
  if ($op == 5) { open(my $f, '<:raw', $p) or return err($id, $p); local $/; my $c = <$f>; close $f;
    return ok($id, defined $c ? $c : ''); }
  if ($op == 6) { my $r = realpath($p); return defined $r ? ok($id, $r) : err($id, $p); }
  if ($op == 7) { my $r = readlink $p; return defined $r ? ok($id, $r) : err($id, $p); }
  if ($op == 8) { return put($p, $a[1], $a[2]) ? ok($id) : err($id, $p); }
  if ($op == 17) { my @s = stat $p or return err($id, $p);
    if (-f _ && $s[7] <= $a[1]) { open(my $f, '<:raw', $p) or return err($id, $p); local $/; my $c = <$f>; close $f;
      return ok($id, st(@s), defined $c ? $c : ''); }
    return ok($id, st(@s)); }
  if ($op == 18) { my @s = stat $p; my ($old, $mode) = (undef, '');
    if (@s) { if (-d _) { $! = 21; return err($id, $p); } $mode = sprintf('%o', $s[2] & 07777);
      if (-f _ && $s[7] <= $a[2]) { open(my $f, '<:raw', $p) or return err($id, $p); local $/; $old = <$f>; close $f;
        $old = '' unless defined $old; } }
    return err($id, $p) unless put($p, $a[1], $mode);
    return ok($id, @s ? 1 : 0, @s ? $s[2] : '', defined $old ? 1 : 0, defined $old ? $old : ''); }
  if ($op == 19) { if (freeze()) { return ok($id, scalar keys %frozen); }
    my $r = err($id, 'freeze'); thaw(); return $r; }
  if ($op == 20) { my $n = scalar keys %frozen; thaw(); return ok($id, $n); }
  if ($op == 9) { return mkdir($p) ? ok($id) : err($id, $p); }
  if ($op == 10) { return unlink($p) ? ok($id) : err($id, $p); }
  if ($op == 11) { return rmdir($p) ? ok($id) : err($id, $p); }
  if ($op == 12) { return run($id, $a[0], $a[1], $a[2]); }
  if ($op == 13) { my $c = $cmds{$p}; return ok($id) unless $c; my $pid = $c->{pid};
    kill_tree($pid, 'TERM'); push @timers, [now() + $a[1] / 1000, sub { kill_tree($pid, 'KILL'); }]; return ok($id); }
  if ($op == 14) { lstat $p or return err($id, $p); remove_tree($p, { error => \my $e }); $! = 13 if @$e;
    return @$e ? err($id, $p) : ok($id); }
  if ($op == 15) { my @acc; lstat $p or return err($id, $p); walk($p, '', \@acc); return ok($id, @acc); }
  if ($op == 16) { return chmod(oct($a[1]) & 07777, $p) ? ok($id) : err($id, $p); }
  $! = 22; return err($id, "unknown operation $op"); }
my $in = ''; my $open = 1;
while ($open || %cmds) {
  my $rin = ''; vec($rin, 0, 1) = 1 if $open; vec($rin, fileno($wake_r), 1) = 1;
  for my $c (values %cmds) { vec($rin, fileno($_), 1) = 1 for values %{$c->{fh}}; }
  my $wait = (@timers || grep { defined $_->{status} } values %cmds) ? 0.05 : 1;
  my $n = select(my $rout = $rin, undef, undef, $wait);
  sysread($wake_r, my $x, 512) if $n > 0 && vec($rout, fileno($wake_r), 1);
  if ($open && $n > 0 && vec($rout, 0, 1)) { my $r = sysread(STDIN, $in, 262144, length $in);
    if (!$r) { if (!defined $r && ($!{EINTR} || $!{EAGAIN})) { } else { $open = 0; kill_tree($_->{pid}, 'KILL') for values %cmds; } }
    while (length($in) >= 4) { my $len = unpack('N', $in); last if length($in) < 4 + $len;
      my $msg = substr($in, 4, $len); substr($in, 0, 4 + $len) = ''; handle(fields($msg)); } }
  for my $id (keys %cmds) { my $c = $cmds{$id}; for my $s (keys %{$c->{fh}}) { my $fh = $c->{fh}{$s};
      next unless $n > 0 && vec($rout, fileno($fh), 1); my $r = sysread($fh, my $buf, 65536);
      if ($r) { out(pack('N C N/a N/a', $id, 2, $s, $buf)); } elsif (defined $r) { close $fh; delete $c->{fh}{$s}; } } }
  while ((my $pid = waitpid(-1, WNOHANG)) > 0) { for my $id (keys %cmds) { my $c = $cmds{$id}; next unless $c->{pid} == $pid;
      $c->{status} = $?; $c->{drain} = now() + 0.25; kill('TERM', -$pid) if $c->{bg}; } }
  my $t = now(); for my $id (keys %cmds) { my $c = $cmds{$id};
    finish($id) if defined $c->{status} && (!%{$c->{fh}} || $t >= $c->{drain}); }
  my @due = grep { $_->[0] <= $t } @timers; @timers = grep { $_->[0] > $t } @timers; $_->[1]->() for @due;
  exit 0 if !$open && !%cmds; }
`;

/**
 * What makes a container's main process the helper, attachable once: its stdin open until the one
 * attached connection lets go (StdinOnce), which is what stops the container with the agent. Every
 * container the agent creates (and the tests' bare ones) is created with these fields.
 */
export const HELPER_CONTAINER = {
  Entrypoint: ["perl", "-e", HELPER_SCRIPT],
  Cmd: [],
  OpenStdin: true,
  StdinOnce: true,
  AttachStdin: true,
  AttachStdout: true,
  AttachStderr: true,
  Tty: false,
};
