# Sourced by the bench scripts: awk_median is an awk function,
# median(s), of the numbers in the space-separated string s (the mean of
# the middle two for an even count). Prepend it to an awk program:
#   awk "$awk_median"' { ... median(x) ... }'
awk_median='
    function median(s,   a, n, i, j, t) {
      n = split(s, a, " ")
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
'
