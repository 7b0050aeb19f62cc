# Reads LLVM assembly for thumbv7m and, from every function of the harness crate
# (`ltu_thumbv7m_check`), follows direct calls (`bl`, `b.w` tail calls) through the
# functions defined in the input. Prints, per entry point, a static stack bound (the sum of
# `push` and `sub sp` amounts along the deepest call chain; there is no recursion) and fails
# (exit 1) if a soft-float helper is reachable.
function frame_of(line,    regs, n) {
    if (line ~ /^\t(push|push\.w|stmdb)\t/) {
        regs = line; sub(/^[^{]*\{/, "", regs); sub(/\}.*/, "", regs)
        n = split(regs, parts, ",")
        return 4 * n
    }
    if (line ~ /^\tsub(\.w|w)?\tsp, (sp, )?#/) {
        n = line; sub(/.*#/, "", n); return n + 0
    }
    return 0
}
/^\t\.type\t.*,%function$/ { name = $2; sub(/,%function$/, "", name); isfn[name] = 1; next }
# `a = b`: LLVM merged two identical functions; a is b (its stack is b's).
/^[_A-Za-z][^ \t]* = [_A-Za-z][^ \t]*$/ { alias[$1] = $3; next }
/^[^\t .][^\t ]*:/ { lbl = $0; sub(/:.*/, "", lbl); if (lbl in isfn) { cur = lbl; frame[cur] += 0 } ; next }
cur != "" {
    frame[cur] += frame_of($0)
    if ($0 ~ /^\t(bl|b\.w|b)\t[_A-Za-z]/) {
        t = $2
        if (!((cur, t) in seen)) { seen[cur, t] = 1; ncall[cur]++; call[cur, ncall[cur]] = t }
    }
    if ($0 ~ /^\tblx\tr/) indirect[cur] = 1
}
function softfloat(s) {
    return s ~ /^__aeabi_(f|d|[ui]?[li]2[fd]|[fd]2)/ || s ~ /^__(add|sub|mul|div|neg|cmp|eq|ne|lt|le|gt|ge|unord|fix|fixuns|float|floatun|extend|trunc|pow)[a-z]*[sdt]f[0-9]?$/
}
function depth(f,    i, t, d, best) {
    if (f in memo) return memo[f]
    if (f in alias) { memo[f] = depth(alias[f]); if (indirect[alias[f]] || indirect_below[alias[f]]) indirect_below[f] = 1; return memo[f] }
    best = 0
    for (i = 1; i <= ncall[f]; i++) {
        t = call[f, i]
        if (softfloat(t)) { bad[f] = t; found_soft = 1 }
        if (t in isfn) { d = depth(t); if (d > best) best = d; if (indirect[t]) indirect_below[f] = 1; if (indirect_below[t]) indirect_below[f] = 1 }
        else if (!softfloat(t)) ext[t] = 1
    }
    memo[f] = frame[f] + best
    return memo[f]
}
END {
    for (f in isfn) if (f ~ /ltu_thumbv7m_check/ && f !~ /closure/) {
        n = f; sub(/^_ZN18ltu_thumbv7m_check[0-9]+/, "", n); sub(/17h[0-9a-f]+E$/, "", n)
        d = depth(f)
        printf "stack %-20s %5d bytes%s\n", n, d, (indirect[f] || indirect_below[f]) ? " + the input source closure's own frame" : ""
    }
    for (t in ext) printf "external callee (not counted, no float): %s\n", t
    if (found_soft) {
        for (f in bad) printf "SOFT-FLOAT: %s calls %s\n", f, bad[f]
        exit 1
    }
    print "no soft-float calls reachable from the evaluation entry points"
}
