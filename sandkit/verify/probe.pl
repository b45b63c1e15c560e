# The probe program of `sandkit verify` (see probe.py): perl with core modules only.
use strict; use warnings;
use Socket qw(inet_aton inet_ntoa sockaddr_in AF_INET SOCK_DGRAM SOCK_RAW PF_INET);
use IO::Socket::INET;
use IO::Select;
use POSIX ();
use Errno qw(ECONNREFUSED EPERM ENOSPC EDQUOT);
$| = 1;
sub out { my ($id, $status, $detail) = @_; $detail =~ s/[\t\r\n]+/ /g; print "SANDKIT-PROBE\t$id\t$status\t$detail\n"; }
sub status_field { my ($name) = @_; open(my $f, '<', '/proc/self/status') or return undef;
  while (<$f>) { return $1 if /^\Q$name\E:\s*(.*?)\s*$/; } return undef; }
sub routes { open(my $f, '<', '/proc/net/route') or return 'no /proc/net/route'; my @r; <$f>;
  while (<$f>) { my @c = split; next unless @c > 7; my $dst = join('.', reverse map { hex } unpack('(A2)4', $c[1]));
    my $gw = join('.', reverse map { hex } unpack('(A2)4', $c[2])); my $via = $gw eq '0.0.0.0' ? $c[0] : "$gw on $c[0]";
    my $bits = unpack('%32b*', pack('N', hex $c[7])); push @r, ($dst eq '0.0.0.0' && $bits == 0 ? "default via $via" : "$dst/$bits via $via"); }
  return @r ? join(', ', @r) : 'no IPv4 routes'; }
sub nexthop { my ($host) = @_; my $d = unpack('N', inet_aton($host)); my ($best, $hop, $dev) = (-1);
  open(my $f, '<', '/proc/net/route') or return; <$f>;
  while (<$f>) { my @c = split; next unless @c > 7; my ($dst, $gw, $mask) = map { unpack('N', pack('V', hex $_)) } @c[1, 2, 7];
    my $bits = unpack('%32b*', pack('N', $mask));
    if (($d & $mask) == $dst && $bits > $best) { ($best, $dev) = ($bits, $c[0]); $hop = $gw ? join('.', unpack('C4', pack('N', $gw))) : $host; } }
  return defined $dev ? ($hop, $dev) : (); }
sub neighbour { my ($ip) = @_; open(my $f, '<', '/proc/net/arp') or return 0; <$f>;
  while (<$f>) { my @c = split; return 1 if @c > 2 && $c[0] eq $ip && hex($c[2]) & 2; } return 0; }
sub proxy { my ($id, $method, $host, $port) = @_;
  my $p = $ENV{HTTP_PROXY} // $ENV{http_proxy};
  if (!defined $p || $p !~ m{^http://\[?([^\]/]+?)\]?:(\d+)/?$}) { out($id, 'error', 'no HTTP_PROXY of the form http://host:port in the agent environment: its traffic is not sent to a proxy'); return; }
  my ($ph, $pp) = ($1, $2);
  my $s = IO::Socket::INET->new(PeerAddr => $ph, PeerPort => $pp, Proto => 'tcp', Timeout => 5);
  if (!$s) { out($id, 'error', "the proxy $ph:$pp named in HTTP_PROXY did not answer (" . ($! || $@) . ')'); return; }
  my $target = $host =~ /:/ ? "[$host]:$port" : "$host:$port";
  my $req = $method eq 'CONNECT' ? "CONNECT $target HTTP/1.1\r\nHost: $target\r\n\r\n"
    : "GET http://$target/ HTTP/1.1\r\nHost: $target\r\nConnection: close\r\n\r\n";
  my $answer = '';
  eval { local $SIG{ALRM} = sub { die "timeout\n" }; alarm 15; print $s $req;
    while (length($answer) < 8192) { my $n = sysread($s, my $buf, 4096); last if !$n; $answer .= $buf; last if $answer =~ /\r\n\r\n/; }
    alarm 0; };
  alarm 0; close $s;
  my ($code) = $answer =~ m{^HTTP/\d(?:\.\d)?\s+(\d{3})};
  my ($err) = $answer =~ m{^X-Squid-Error:\s*(\S+)}mi;
  my $what = defined $code ? $code . (defined $err ? " $err" : '') : 'no HTTP answer' . ($@ ? " ($@)" : '');
  $what =~ s/\s+$//;
  # squid's own refusal carries its error name; a 403 without it came from past the proxy.
  if (defined $code && $code eq '403' && defined $err && $err eq 'ERR_ACCESS_DENIED') { out($id, 'pass', "refused by the proxy ($what)"); }
  elsif (defined $code && $code eq '403') { out($id, 'fail', "a 403 that is not the proxy's refusal ($what): the request went past the proxy to something that refused it"); }
  elsif (defined $code && $code =~ /^2/) { out($id, 'fail', "the proxy let it through ($what)"); }
  elsif (defined $code) { out($id, 'fail', "the proxy did not refuse it but tried to reach it ($what): it is not applying the allowlist"); }
  else { out($id, 'error', "the proxy gave $what"); } }
sub direct { my ($kind, $id, $host, $port, $mode) = @_;
  # $NAME: an address the platform gives the pod in its environment (the API server's).
  for ($host, $port) { if (/^\$(\w+)$/) { my $v = $ENV{$1}; if (!defined $v || $v eq '') { out($id, 'error', "\$$1 is not set"); return; } $_ = $v; } }
  my ($err, $ok);
  if ($kind eq 'tcp') {
    my $s = IO::Socket::INET->new(PeerAddr => $host, PeerPort => $port, Proto => 'tcp', Timeout => 4);
    if ($s) { $ok = 'connected'; close $s; } else { $err = $! + 0; }
  } else {
    my $u;
    if (socket($u, PF_INET, SOCK_DGRAM, 0) && connect($u, sockaddr_in($port, inet_aton($host)))) {
      # A datagram is queued even when its next hop never answers: the neighbour table below says
      # whether it could leave.
      if (send($u, 'sandkit-verify probe', 0)) { sleep 4; $ok = 'a datagram was sent'; } else { $err = $! + 0; }
    } else { $err = $! + 0; } }
  # The next hop toward the destination answering its neighbour lookup is a way out of the
  # sandbox's network, whatever happens further on (a host that refuses it sends an ICMP error too).
  # mode drop (a cluster's pod network): the next hop always answers and the policy drops further
  # on, so only an answer from the destination counts.
  my ($hop, $dev) = ($mode // '') eq 'drop' ? () : nexthop($host);
  my $left = defined $hop && neighbour($hop);
  my $msg = defined $ok ? $ok : do { local $! = $err; "$!" };
  if (defined $ok && $kind eq 'tcp') { out($id, 'fail', "tcp to $host:$port connected; routes: " . routes()); }
  elsif (defined $err && $err == ECONNREFUSED) { out($id, 'fail', "$kind to $host:$port: refused by a host that answered; routes: " . routes()); }
  elsif ($left) { out($id, 'fail', "$kind to $host:$port ($msg): its next hop $hop on $dev answers, so packets leave the sandbox network; routes: " . routes()); }
  elsif (($mode // '') eq 'drop') { out($id, 'pass', "$kind to $host:$port: no answer ($msg)"); }
  elsif (!defined $hop) { out($id, 'pass', "$kind to $host:$port: no route ($msg)"); }
  else { out($id, 'pass', "$kind to $host:$port: the next hop $hop on $dev does not answer, nothing leaves ($msg)"); } }
sub expand { my ($v) = @_; return $v unless $v =~ /^\$(\w+)$/; return $ENV{$1}; }
sub left_by { my ($host, $mode) = @_; local $_;
  # The next hop toward $host answering its neighbour lookup (not on a cluster: see direct).
  return '' if ($mode // '') eq 'drop' || $host =~ /^127\./;
  my ($hop, $dev) = nexthop($host); return defined $hop && neighbour($hop) ? "its next hop $hop on $dev answers" : ''; }
sub icmp { my ($id, $hosts, $mode) = @_; my @hosts = grep { defined && length } map { expand($_) } split /,/, $hosts;
  # An unprivileged ICMP socket (SOCK_DGRAM, IPPROTO_ICMP) is open to the groups of
  # net.ipv4.ping_group_range, which the engine sets to every group in a container; a raw socket
  # needs CAP_NET_RAW. Whichever opens is the agent's way to send ICMP.
  my ($s, $how, @why);
  if (socket($s, PF_INET, SOCK_DGRAM, 1)) { $how = 'a ping socket'; }
  else { my ($refused, $range) = ("$!", ''); if (open(my $f, '<', '/proc/sys/net/ipv4/ping_group_range')) { $range = <$f> // ''; $range =~ s/\s+/ /g; $range =~ s/ $//; }
    push @why, "a ping socket is refused ($refused; net.ipv4.ping_group_range $range)";
    if (socket($s, PF_INET, SOCK_RAW, 1)) { $how = 'a raw socket'; } else { push @why, "a raw socket too ($!)"; } }
  if (!defined $how) { out($id, 'pass', 'the agent cannot send ICMP at all: ' . join(', ', @why)); return; }
  my (%sent, %reply, @notes);
  for my $i (0 .. $#hosts) { my $addr = inet_aton($hosts[$i]); if (!$addr) { push @notes, "$hosts[$i]: not an address"; next; }
    my $pkt = pack('C C n n n', 8, 0, 0, 0x5356, $i + 1) . 'sandkit-verify probe';
    if ($how eq 'a raw socket') { my $sum = 0; $sum += $_ for unpack('n*', $pkt . (length($pkt) % 2 ? "\0" : ''));
      $sum = ($sum >> 16) + ($sum & 0xffff) while $sum >> 16; substr($pkt, 2, 2) = pack('n', ~$sum & 0xffff); }
    if (send($s, $pkt, 0, sockaddr_in(0, $addr))) { $sent{$hosts[$i]} = 1; } else { push @notes, "$hosts[$i]: not sent ($!)"; } }
  my $select = IO::Select->new($s); my $end = time + 4;
  for (1 .. 64) { my $wait = $end - time; last if $wait <= 0 || !$select->can_read($wait);
    my $from = recv($s, my $buf, 1500, 0); next if !defined $from || length($from) < 8;
    my $ip = inet_ntoa((sockaddr_in($from))[1]);
    $buf = substr($buf, (unpack('C', $buf) & 15) * 4) if $how eq 'a raw socket';
    $reply{$ip} = 1 if length($buf) && unpack('C', $buf) == 0 && $sent{$ip}; }
  my @out;
  for my $host (sort keys %sent) { my $l = $reply{$host} ? 'replied' : left_by($host, $mode); push @out, "$host $l" if $l; }
  my $summary = "echo requests by $how to " . join(', ', @hosts) . (@notes ? ' (' . join('; ', @notes) . ')' : '');
  if (@out) { out($id, 'fail', "$summary: " . join('; ', @out) . ', so ICMP leaves the sandbox network; routes: ' . routes()); }
  else { out($id, 'pass', "$summary: no reply, and no next hop answers"); } }
sub dns_query { my ($proto, $server) = @_;
  # One question, A of sandkit-verify.invalid (RFC 6761: no resolver may resolve it).
  my $q = pack('n n n n n n', int(rand(65535)), 0x0100, 1, 0, 0, 0) . "\016sandkit-verify\007invalid\0" . pack('n n', 1, 1);
  my $s = IO::Socket::INET->new(PeerAddr => $server, PeerPort => 53, Proto => $proto, Timeout => 3);
  return (undef, $! + 0) if !$s;
  my $answer = '';
  eval { local $SIG{ALRM} = sub { die "timeout\n" }; alarm 3;
    if ($proto eq 'tcp') { print $s pack('n', length $q) . $q; while (length($answer) < 14) { my $n = sysread($s, my $b, 512); last if !$n; $answer .= $b; } $answer = substr($answer, 2); }
    else { $s->send($q); $s->recv($answer, 512); }
    alarm 0; };
  alarm 0; close $s;
  return length($answer) >= 4 ? (unpack('n', substr($answer, 2, 2)) & 15, 0) : (undef, 0); }
sub nameservers { open(my $f, '<', '/etc/resolv.conf') or return (); my @ns;
  while (<$f>) { push @ns, $1 if /^\s*nameserver\s+([0-9.]+)\s*$/; } return @ns; }
my %RCODE = (0 => 'NOERROR', 1 => 'FORMERR', 2 => 'SERVFAIL', 3 => 'NXDOMAIN', 4 => 'NOTIMP', 5 => 'REFUSED');
sub dns { my ($id, $server, $mode) = @_;
  # resolv: the resolvers the agent's own lookups go to. They may answer names of the sandbox
  # (the proxy's); one that answers an outside name (NOERROR, NXDOMAIN) forwarded it past the
  # sandbox, and the names an agent looks up can carry data out. Any other server: any answer fails.
  my @servers = $server eq 'resolv' ? nameservers() : (expand($server));
  if (!@servers || !defined $servers[0]) { out($id, $server eq 'resolv' ? 'pass' : 'error', $server eq 'resolv' ? 'no nameserver in /etc/resolv.conf: the agent has no resolver' : "$server is not set"); return; }
  my (@bad, @good);
  for my $ns (@servers) { for my $proto ('udp', 'tcp') {
    my ($rcode, $err) = dns_query($proto, $ns);
    my $name = defined $rcode ? ($RCODE{$rcode} // "rcode $rcode") : '';
    if (defined $rcode && $server eq 'resolv' && $rcode != 0 && $rcode != 3) { push @good, "$proto $ns: $name (not resolved)"; }
    elsif (defined $rcode) { push @bad, "$proto $ns answered $name for sandkit-verify.invalid" . ($server eq 'resolv' ? ': it forwards outside names past the sandbox' : ''); }
    elsif ($err == ECONNREFUSED && $server ne 'resolv') { push @bad, "$proto $ns:53 refused by a host that answered"; }
    else { my $why = $err ? do { local $! = $err; "$!" } : 'no answer'; my $l = left_by($ns, $mode);
      if ($l) { push @bad, "$proto $ns:53 ($why): $l"; } else { push @good, "$proto $ns:53: $why"; } } } }
  if (@bad) { out($id, 'fail', join('; ', @bad) . '; routes: ' . routes()); } else { out($id, 'pass', join('; ', @good)); } }
sub proc_field { my ($pid, $name) = @_; open(my $f, '<', "/proc/$pid/status") or return undef;
  while (<$f>) { return $1 if /^\Q$name\E:\s*(.*?)\s*$/; } return undef; }
sub deadline { my ($id, $seconds) = @_;
  # The session's deadline: a `sleep N` of another uid in the agent's PID namespace; when it ends,
  # the namespace's init exits and the kernel ends every process in it.
  my $ticks = POSIX::sysconf(POSIX::_SC_CLK_TCK()) || 100;
  open(my $u, '<', '/proc/uptime') or do { out($id, 'error', 'no /proc/uptime'); return; };
  my ($uptime) = split ' ', scalar <$u>;
  my (@mine, @found);
  opendir(my $d, '/proc') or do { out($id, 'error', "cannot list /proc: $!"); return; };
  for my $pid (grep { /^\d+$/ && $_ != $$ } readdir $d) {
    open(my $c, '<', "/proc/$pid/cmdline") or next; my @argv = split /\0/, do { local $/; <$c> // '' };
    next unless @argv == 2 && $argv[0] =~ m{(^|/)sleep$} && $argv[1] =~ /^(\d+)s?$/;
    my $length = $1;
    open(my $s, '<', "/proc/$pid/stat") or next; my $stat = <$s>; $stat =~ s/^.*\)\s+//;
    my $left = int($length - ($uptime - (split ' ', $stat)[19] / $ticks));
    my $uid = (split ' ', proc_field($pid, 'Uid') // '')[1] // '?';
    my $signal = kill(0, $pid) ? 'the agent can signal it' : $! == EPERM ? '' : "kill: $!";
    my $what = "pid $pid, uid $uid, `sleep $length`, ${left} s left";
    if ($uid eq $> || $signal) { push @mine, "$what: " . ($signal || 'the agent\'s own uid'); } else { push @found, [$what, $length, $left]; } }
  my ($best) = sort { $a->[2] <=> $b->[2] } @found;
  if (!$best) { out($id, 'fail', 'no deadline in the agent\'s PID namespace (a `sleep N` of another uid): nothing ends the session if the agent stops its own timeout' . (@mine ? '; only ' . join('; ', @mine) : '')); }
  elsif ($seconds ne '' && $best->[1] > $seconds) { out($id, 'fail', "the deadline ($best->[0]) is longer than the kit's $seconds s"); }
  else { out($id, 'pass', "the deadline ($best->[0]) ends the session; the agent cannot signal it (EPERM)" . ($seconds ne '' ? "; the kit says $seconds s" : '')); } }
sub disk { my ($id, $budget, $fill) = @_;
  # Every writable place (an rw mount but /proc, /sys, /dev) must be a tmpfs with a size, the sizes
  # together within the session's budget; the smallest is then filled (up to $fill bytes) to see
  # the kernel stop the write at its size.
  my (@places, @unbounded);
  if (open(my $m, '<', '/proc/self/mountinfo')) { while (<$m>) { my ($left, $right) = split / - /, $_, 2; next unless defined $right;
      my @c = split ' ', $left; my ($fstype, undef, $super) = split ' ', $right; my $point = $c[4]; $point =~ s/\\040/ /g;
      if ($point eq '/' && $c[5] =~ /(^|,)rw(,|$)/) { push @unbounded, "/ (the root, mounted rw: the engine's disk; /var/tmp and the like are the agent's)"; next; }
      next if $point eq '/' || $point =~ m{^/(proc|sys|dev)(/|$)} || $c[5] !~ /(^|,)rw(,|$)/ || !-d $point || !-w $point;
      if ($fstype ne 'tmpfs') { push @unbounded, "$point ($fstype: the disk it is on, not the budget)"; }
      elsif (($super // '') =~ /(?:^|,)size=(\d+)k(?:,|$)/) { push @places, [$point, $1 * 1024]; }
      else { push @unbounded, "$point (a tmpfs without size: the kernel's default, half the machine's memory)"; } } }
  my $total = 0; $total += $_->[1] for @places;
  my $sizes = join(', ', map { "$_->[0] $_->[1]" } @places) || 'none';
  my @bad = map { "not bounded: $_" } @unbounded;
  push @bad, "the tmpfs sizes add up to $total bytes, more than the budget of $budget" if $budget && $total > $budget;
  my $filled = '';
  my ($small) = sort { $a->[1] <=> $b->[1] } @places;
  if ($small && $small->[1] <= $fill) { my $file = "$small->[0]/.sandkit-verify-fill-$$"; my $written = 0; my $err = '';
    if (open(my $f, '>', $file)) { my $chunk = "\xa5" x (1 << 20);
      while ($written <= $small->[1]) { my $n = syswrite($f, $chunk); if (!defined $n) { $err = "$!"; last; } $written += $n; }
      close $f; unlink $file; }
    else { $err = "cannot create: $!"; }
    if ($written > $small->[1]) { push @bad, "wrote $written bytes into $small->[0], past its size of $small->[1]"; }
    else { $filled = "; filling $small->[0] stopped at $written bytes ($err)"; } }
  elsif ($small) { $filled = "; $small->[0] not filled ($small->[1] bytes is more than the probe writes, $fill)"; }
  if (@bad) { out($id, 'fail', join('; ', @bad) . "; tmpfs sizes: $sizes"); }
  else { out($id, 'pass', "every writable place is a tmpfs with a size: $sizes bytes, together $total" . ($budget ? ", within the budget of $budget" : '') . $filled); } }
sub user { my ($id, $uid) = @_; my ($real, $eff) = split ' ', (status_field('Uid') // '');
  my ($groups) = status_field('Groups') // '';
  if (!defined $eff) { out($id, 'error', 'no Uid line in /proc/self/status'); }
  elsif ($eff eq '0' || $real eq '0') { out($id, 'fail', "runs as root (uid $real, effective $eff)"); }
  elsif ($uid ne '' && $eff ne $uid) { out($id, 'fail', "runs as uid $eff, the kit says $uid"); }
  else { out($id, 'pass', "uid $eff, not root" . ($groups ? ", groups $groups" : '')); } }
my @CAPS = qw(chown dac_override dac_read_search fowner fsetid kill setgid setuid setpcap linux_immutable
  net_bind_service net_broadcast net_admin net_raw ipc_lock ipc_owner sys_module sys_rawio sys_chroot sys_ptrace
  sys_pacct sys_admin sys_boot sys_nice sys_resource sys_time sys_tty_config mknod lease audit_write audit_control
  setfcap mac_override mac_admin syslog wake_alarm block_suspend audit_read perfmon bpf checkpoint_restore);
sub capnames { my ($hex) = @_; my @n; my $v = hex(substr($hex, -8)); my $hi = length($hex) > 8 ? hex(substr($hex, 0, -8)) : 0;
  for my $i (0..63) { my $set = $i < 32 ? ($v >> $i) & 1 : ($hi >> ($i - 32)) & 1; push @n, 'CAP_' . uc($CAPS[$i] // "$i") if $set; } return join(',', @n); }
sub caps { my ($id) = @_; my @bad;
  for my $f (qw(CapEff CapPrm CapInh CapBnd CapAmb)) { my $v = status_field($f); next unless defined $v; push @bad, "$f " . capnames($v) if $v =~ /[1-9a-f]/i; }
  my $nnp = status_field('NoNewPrivs') // '?';
  push @bad, "NoNewPrivs $nnp (a setuid program could gain privileges)" if $nnp ne '1';
  if (@bad) { out($id, 'fail', 'capabilities held: ' . join('; ', @bad)); } else { out($id, 'pass', 'no capability in any set (effective, permitted, inheritable, bounding, ambient); NoNewPrivs 1'); } }
sub rootfs { my ($id, $allowed) = @_; my %allowed = map { $_ => 1 } grep { length } split /,/, $allowed;
  my ($rootopts, @rw);
  if (open(my $m, '<', '/proc/self/mountinfo')) { while (<$m>) { my @c = split; next unless @c > 6;
      my ($point, $opts) = ($c[4], $c[5]); $point =~ s/\\040/ /g;
      $rootopts = $opts if $point eq '/';
      push @rw, $point if $opts =~ /(^|,)rw(,|$)/ && $point !~ m{^/(proc|sys|dev)(/|$)}; } }
  my @writable;
  for my $place ('/', '/etc', '/usr', '/bin', '/opt', '/var', '/root', @rw) { next if grep { $_ eq $place } @writable;
    my $file = ($place eq '/' ? '' : $place) . "/.sandkit-verify-$$";
    if (open(my $f, '>', $file)) { close $f; unlink $file; push @writable, $place; } }
  my @unexpected = grep { !$allowed{$_} } @writable;
  my $ro = defined $rootopts && $rootopts =~ /(^|,)ro(,|$)/;
  my $places = 'writable: ' . (@writable ? join(', ', @writable) : 'nothing');
  if (!$ro) { out($id, 'fail', 'the root filesystem is mounted ' . ($rootopts // 'unknown') . ", not read-only; $places"); }
  elsif (@unexpected) { out($id, 'fail', 'writable places the kit does not declare: ' . join(', ', @unexpected) . "; $places"); }
  else { out($id, 'pass', "root filesystem read-only; $places"); } }
sub secret { my ($id, $name, $placeholder) = @_; my @bad;
  my $v = $ENV{$name};
  push @bad, "\$$name is " . (defined $v ? 'set to something other than the placeholder (' . length($v) . ' characters)' : 'not set, not even to the placeholder') if !defined $v || $v ne $placeholder;
  push @bad, "/run/secrets/$name is mounted in the agent" if -e "/run/secrets/$name";
  for my $k (sort keys %ENV) { push @bad, "\$${k}_FILE names a file holding it" if $k eq "${name}_FILE" && -r $ENV{$k}; }
  if (@bad) { out($id, 'fail', join('; ', @bad)); } else { out($id, 'pass', "\$$name holds only the placeholder, and no secret file of it is mounted"); } }
# The network probes wait on timeouts, so each runs in a child of its own (a result line is one
# write, shorter than a pipe's atomic size); the end line comes after every child has finished.
my @children;
for my $arg (@ARGV) { my ($kind, $id, @rest) = split /\|/, $arg, -1;
  my $child = $kind =~ /^(proxy|tcp|udp|icmp|dns)$/ ? fork() : undef;
  if ($child) { push @children, $child; next; }
  eval {
    if ($kind eq 'proxy') { proxy($id, @rest); }
    elsif ($kind eq 'tcp' || $kind eq 'udp') { direct($kind, $id, @rest); }
    elsif ($kind eq 'icmp') { icmp($id, @rest); }
    elsif ($kind eq 'dns') { dns($id, @rest); }
    elsif ($kind eq 'deadline') { deadline($id, @rest); }
    elsif ($kind eq 'disk') { disk($id, @rest); }
    elsif ($kind eq 'user') { user($id, @rest); }
    elsif ($kind eq 'caps') { caps($id); }
    elsif ($kind eq 'rootfs') { rootfs($id, @rest); }
    elsif ($kind eq 'secret') { secret($id, shift @rest, join('|', @rest)); }  # a placeholder may hold |
    else { out($id, 'error', "unknown probe kind $kind"); }
    1; } or out($id, 'error', "the probe died: $@");
  if (defined $child) { require POSIX; POSIX::_exit(0); } }
waitpid($_, 0) for @children;
print "SANDKIT-PROBE-END\n";
