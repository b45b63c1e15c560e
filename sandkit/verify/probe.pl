# The probe program of `sandkit verify` (see probe.py): perl with core modules only.
use strict; use warnings;
use Socket qw(inet_aton sockaddr_in AF_INET SOCK_DGRAM PF_INET);
use IO::Socket::INET;
use Errno qw(ECONNREFUSED);
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
  my $child = $kind =~ /^(proxy|tcp|udp)$/ ? fork() : undef;
  if ($child) { push @children, $child; next; }
  eval {
    if ($kind eq 'proxy') { proxy($id, @rest); }
    elsif ($kind eq 'tcp' || $kind eq 'udp') { direct($kind, $id, @rest); }
    elsif ($kind eq 'user') { user($id, @rest); }
    elsif ($kind eq 'caps') { caps($id); }
    elsif ($kind eq 'rootfs') { rootfs($id, @rest); }
    elsif ($kind eq 'secret') { secret($id, shift @rest, join('|', @rest)); }  # a placeholder may hold |
    else { out($id, 'error', "unknown probe kind $kind"); }
    1; } or out($id, 'error', "the probe died: $@");
  if (defined $child) { require POSIX; POSIX::_exit(0); } }
waitpid($_, 0) for @children;
print "SANDKIT-PROBE-END\n";
