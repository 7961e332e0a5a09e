#!/usr/bin/perl
# assigned.pl - the code points assigned in a Unicode version (Age <= VERSION),
# from Perl's Unicode::UCD, as an inversion list: comma-separated decimal
# code points where membership starts, stops, starts, ... (the table UNI9 of
# src/tok/normalize.c holds its pairs; gen_tables.py calls this).
# usage: perl tools/norm/assigned.pl [VERSION]     (default 9.0)
use strict;
use warnings;
use Unicode::UCD qw(prop_invlist);

my $v = shift // '9.0';
my ($have) = Unicode::UCD::UnicodeVersion() =~ /^(\d+\.\d+)/;
die "assigned.pl: this Perl has Unicode $have, older than $v\n" if $have < $v;
my @inv = prop_invlist("In=$v");
die "assigned.pl: Unicode::UCD knows no In=$v\n" unless @inv;
print join(',', @inv), "\n";
