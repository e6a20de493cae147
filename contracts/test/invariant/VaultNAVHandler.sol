// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { HookHandlerBase } from "./HookHandlerBase.sol";
import { Execution, ExecutionLib } from "../../src/libraries/ExecutionLib.sol";
import { VaultNAVEnforcer } from "../../src/enforcers/VaultNAVEnforcer.sol";
import { TestUSDC } from "../../src/test-assets/TestUSDC.sol";
import { TestToken } from "../../src/test-assets/TestToken.sol";
import { TestVault } from "../../src/test-assets/TestVault.sol";

/// Random redemptions against VaultNAVEnforcer while the vault's state moves (deposits, exits, donations
/// that raise the share price, losses that lower it down to an empty vault with shares outstanding).
/// Each redemption mixes deposit / mint / withdraw / redeem, share and asset transfer / transferFrom /
/// approve (to the vault and to others), other calls, unlimited and overflowing amounts and truncated
/// calldata; single or batch, default or try-mode, now and then bad terms or an unsupported call type.
/// The model (docs/contracts.md, VaultNAVEnforcer) prices each call through the vault's ERC-4626 views.
contract VaultNAVHandler is HookHandlerBase {
    bytes4 internal constant DEPOSIT = 0x6e553f65; // deposit(uint256,address)
    bytes4 internal constant MINT = 0x94bf804d; // mint(uint256,address)
    bytes4 internal constant WITHDRAW = 0xb460af94; // withdraw(uint256,address,address)
    bytes4 internal constant REDEEM = 0xba087652; // redeem(uint256,address,address)
    bytes4 internal constant TRANSFER = 0xa9059cbb;
    bytes4 internal constant TRANSFER_FROM = 0x23b872dd;
    bytes4 internal constant APPROVE = 0x095ea7b3;
    address internal constant PAYEE = address(0xCAFE);
    uint256 internal constant MAX = type(uint256).max;

    VaultNAVEnforcer public immutable enforcer;
    TestUSDC public immutable usdc; // the vault's asset
    TestToken public immutable other;
    TestVault public immutable vault;

    uint256 public exceedingAccepted; // accepted although the model's amount is over the model's cap
    uint256 public acceptedMoving; // accepted with a non-zero amount
    uint256 public acceptedTryMode;
    uint256 public acceptedAtCap; // amount == cap > 0
    uint256 public acceptedApproveAndDeposit; // approve(vault, x) + deposit(x) with x == cap > 0
    uint256 public refusedOverCap;
    uint256 public refusedOneOver; // amount == cap + 1
    uint256 public refusedEmptyVault; // totalAssets == 0
    uint256 public refusedUnlimited; // amount == type(uint256).max
    uint256 public refusedVaultView; // a share conversion reverted in the vault and bubbled up
    uint256 public refusedBadTerms;
    uint256 public refusedCallType;

    // One transaction of many redemptions (redeemMany).
    uint256 public transactionsOverCap; // a transaction whose accepted redemptions moved more than the cap
    uint256 public transactionsAccepted; // every redemption of a multi-redemption transaction passed
    uint256 public transactionsRefusedLater; // refused at a redemption that alone would have passed

    struct Call {
        bytes terms;
        uint16 bps;
        bytes fault; // the revert a malformed terms or mode must give, before anything is priced
        bytes32 mode;
        Execution[] executions;
        bool asBatch;
    }

    struct Outcome {
        bytes want;
        bool priced; // amount, cap and total are known (no view reverted first)
        uint256 amount;
        uint256 cap;
        uint256 total;
    }

    constructor() {
        enforcer = new VaultNAVEnforcer();
        usdc = new TestUSDC();
        other = new TestToken("Other", "OTH", 18);
        vault = new TestVault(address(usdc));
        _deposit(10_000e6);
    }

    // ------------------------------------------------------------------ vault state

    /// An outside depositor adds assets at the current share price.
    function deposit(
        uint256 seed
    ) external {
        _deposit(1 + _logAmount(seed, 15));
    }

    /// The depositor redeems some (or, one time in four, all) of its shares.
    function exit(
        uint256 seed
    ) external {
        uint256 shares = vault.balanceOf(address(this));
        if (seed % 4 != 0) shares = bound(seed >> 2, 0, shares);
        vault.redeem(shares, address(this), address(this));
    }

    /// Assets arrive without shares: the share price rises (also into a vault with no shares).
    function donate(
        uint256 seed
    ) external {
        usdc.mint(address(vault), 1 + _logAmount(seed, 15));
    }

    /// The vault loses assets (a strategy loss): shares are worth less, sometimes nothing.
    function loss(
        uint256 seed
    ) external {
        uint256 total = usdc.balanceOf(address(vault));
        uint256 lost = seed % 4 == 0 ? total : bound(seed >> 2, 0, total);
        vm.prank(address(vault));
        require(usdc.transfer(PAYEE, lost), "loss transfer");
    }

    function _deposit(
        uint256 assets
    ) internal {
        usdc.mint(address(this), assets);
        usdc.approve(address(vault), assets);
        vault.deposit(assets, address(this));
    }

    // ------------------------------------------------------------------ redemptions

    function redeem(
        uint256 seed
    ) external {
        Call memory c = _terms(seed);
        uint256 n = 1 + (seed >> 40) % 4;
        c.asBatch = n > 1 || (seed >> 44) % 2 == 0;
        c.executions = new Execution[](n);
        uint256 cap = usdc.balanceOf(address(vault)) * (c.fault.length == 0 ? c.bps : 1000) / 10_000;
        for (uint256 i; i < n; ++i) {
            c.executions[i] = _execution(_rand(seed, i), cap / n);
        }
        _setMode(c, seed >> 48);
        _execute(c, false);
    }

    /// A redemption that moves exactly the cap, or one unit more: a withdraw, the usual approve(vault, x) +
    /// deposit(x), or an asset transfer plus a withdraw.
    function redeemAtCap(
        uint256 seed
    ) external {
        Call memory c;
        c.bps = _bps(seed);
        c.terms = abi.encode(address(vault), c.bps);
        uint256 x = usdc.balanceOf(address(vault)) * c.bps / 10_000 + (seed >> 16) % 2;
        uint256 variant = (seed >> 20) % 3;
        c.asBatch = variant != 0;
        c.executions = new Execution[](variant == 0 ? 1 : 2);
        if (variant == 0) {
            c.executions[0] = Execution(address(vault), 0, _withdrawCall(x));
        } else if (variant == 1) {
            c.executions[0] = Execution(address(usdc), 0, abi.encodeWithSelector(APPROVE, address(vault), x));
            c.executions[1] = Execution(address(vault), 0, abi.encodeWithSelector(DEPOSIT, x, DELEGATOR));
        } else {
            uint256 k = bound(seed >> 24, 0, x);
            c.executions[0] = Execution(address(usdc), 0, abi.encodeWithSelector(TRANSFER, PAYEE, k));
            c.executions[1] = Execution(address(vault), 0, _withdrawCall(x - k));
        }
        c.mode = _mode(c.asBatch ? BATCH : SINGLE, (seed >> 30) % 2 == 0 ? DEFAULT_EXEC : TRY_EXEC);
        _execute(c, variant == 1);
    }

    /// One transaction of 2 to 40 redemptions under one caveat, as redeemDelegations runs them: every
    /// redemption's beforeAllHook first, then the other hooks; now and then the vault changes in between
    /// (a second redeemDelegations call after the first one's executions). The model keeps the running
    /// sum and the vault's total at the first counted redemption: the first redemption that takes the
    /// sum past that total's cap is refused, with the running sum, and with it the whole transaction.
    function redeemMany(
        uint256 seed
    ) external {
        Many memory t;
        t.bps = _bps(seed);
        t.terms = abi.encode(address(vault), t.bps);
        t.aloneWithinCap = true;
        uint256 n = 2 + (seed >> 16) % 39;
        // Half the transactions split about the cap into n plain withdrawals (so many pass, and some fail
        // only because of the ones before them); the rest draw every call shape around a larger share.
        bool plain = (seed >> 30) % 2 == 0;
        uint256 cap = usdc.balanceOf(address(vault)) * t.bps / 10_000;
        uint256 share = plain ? cap / n : cap / (1 + (seed >> 24) % 4);
        for (uint256 i; i < n && t.got.length == 0; ++i) {
            uint256 r = _rand(seed, i);
            if ((r >> 250) % 8 == 0) _changeVault(r >> 100);
            Execution memory x = plain
                ? Execution(address(vault), 0, _withdrawCall(bound(r >> 8, share / 2, share + share / 4 + 1)))
                : _execution(r, share);
            _redeemOne(t, x);
            if (t.got.length == 0 && t.want.length != 0) break; // accepted what the model refuses
        }
        calls++;
        if (t.got.length == 0 && t.want.length == 0) {
            accepted++;
            transactionsAccepted++;
        } else if (t.got.length == 0) {
            if (_selector(t.want) == VaultNAVEnforcer.ExceedsVaultNAV.selector) transactionsOverCap++;
            _mismatch(string.concat("transaction accepted; the model refuses with ", _hex(t.want)));
        } else if (keccak256(t.got) != keccak256(t.want)) {
            _mismatch(string.concat("transaction refused with ", _hex(t.got), "; the model refuses with ", _hex(t.want)));
        } else if (_selector(t.want) == VaultNAVEnforcer.ExceedsVaultNAV.selector && t.aloneWithinCap) {
            transactionsRefusedLater++;
        }
    }

    struct Many {
        uint16 bps;
        bytes terms;
        bool seen;
        uint256 first; // totalAssets at the first counted redemption
        uint256 moved;
        bytes want; // the model's refusal, once there is one
        bytes got; // the enforcer's refusal, once there is one
        bool aloneWithinCap; // the refused redemption would have passed in a transaction of its own
    }

    function _redeemOne(
        Many memory t,
        Execution memory x
    ) internal {
        (uint256 amount, bool reverted, bytes memory err) = _assetsOf(x);
        if (reverted) {
            t.want = err;
        } else if (amount != 0) {
            uint256 total = usdc.balanceOf(address(vault));
            if (!t.seen) (t.seen, t.first) = (true, total);
            t.moved = amount > MAX - t.moved ? MAX : t.moved + amount;
            uint256 cap = t.first * t.bps / 10_000;
            if (t.moved > cap) {
                t.want = abi.encodeWithSelector(VaultNAVEnforcer.ExceedsVaultNAV.selector, address(vault), t.moved, cap, t.first);
                t.aloneWithinCap = amount <= total * t.bps / 10_000;
            }
        }
        Execution[] memory one = new Execution[](1);
        one[0] = x;
        vm.prank(MANAGER);
        (bool ok, bytes memory e) = address(enforcer)
            .call(
                abi.encodeCall(enforcer.beforeAllHook, (t.terms, "", bytes32(0), _encode(one, false), HASH, DELEGATOR, REDEEMER))
            );
        if (!ok) t.got = e.length == 0 ? bytes("empty revert") : e;
    }

    /// An execution of an earlier redeemDelegations call in the same transaction: assets arrive or leave.
    function _changeVault(
        uint256 r
    ) internal {
        if (r % 2 == 0) usdc.mint(address(vault), 1 + _logAmount(r >> 1, 12));
        else _deposit(1 + _logAmount(r >> 1, 12));
    }

    function _execute(
        Call memory c,
        bool approveAndDeposit
    ) internal {
        Outcome memory m = _model(c);
        bool ok = _run(address(enforcer), c.terms, c.mode, _encode(c.executions, c.asBatch), m.want);
        bool over = m.priced && m.amount > m.cap;
        if (ok) {
            if (over) exceedingAccepted++;
            if (m.want.length != 0) return;
            if (m.amount != 0) acceptedMoving++;
            if (ExecutionLib.execType(c.mode) != DEFAULT_EXEC) acceptedTryMode++;
            if (m.amount != 0 && m.amount == m.cap) {
                acceptedAtCap++;
                if (approveAndDeposit) acceptedApproveAndDeposit++;
            }
            return;
        }
        bytes4 sel = _selector(m.want);
        if (sel == VaultNAVEnforcer.ExceedsVaultNAV.selector) {
            refusedOverCap++;
            if (m.amount == m.cap + 1) refusedOneOver++;
            if (m.total == 0) refusedEmptyVault++;
            if (m.amount == MAX) refusedUnlimited++;
        } else if (sel == VaultNAVEnforcer.InvalidNavBps.selector || sel == VaultNAVEnforcer.InvalidTermsLength.selector) {
            refusedBadTerms++;
        } else if (sel == ExecutionLib.UnsupportedCallType.selector) {
            refusedCallType++;
        } else if (m.want.length != 0) {
            refusedVaultView++;
        }
    }

    // ------------------------------------------------------------------ the model

    /// What the hook must do: refuse malformed terms or mode; sum every execution's asset amount
    /// (saturating); pass when it is 0; otherwise refuse it above floor(totalAssets * bps / 10000).
    function _model(
        Call memory c
    ) internal view returns (Outcome memory m) {
        if (c.fault.length != 0) {
            m.want = c.fault;
            return m;
        }
        for (uint256 i; i < c.executions.length; ++i) {
            (uint256 amount, bool reverted, bytes memory err) = _assetsOf(c.executions[i]);
            if (reverted) {
                m.want = err;
                return m;
            }
            m.amount = amount > MAX - m.amount ? MAX : m.amount + amount;
        }
        m.priced = true;
        m.total = usdc.balanceOf(address(vault));
        m.cap = m.total * c.bps / 10_000;
        if (m.amount > m.cap) {
            m.want = abi.encodeWithSelector(VaultNAVEnforcer.ExceedsVaultNAV.selector, address(vault), m.amount, m.cap, m.total);
        }
    }

    /// Asset units one execution moves, per docs/contracts.md. A share conversion the vault itself refuses
    /// (an overflow) is reported with its revert data, which the hook must bubble up.
    function _assetsOf(
        Execution memory x
    ) internal view returns (uint256, bool, bytes memory) {
        bytes memory cd = x.callData;
        if (cd.length < 4) return (0, false, "");
        bytes4 sel = _selector(cd);
        if (x.target == address(vault)) {
            if (sel == DEPOSIT || sel == WITHDRAW) return (_wordAt(cd, 4), false, "");
            if (sel == MINT) return _shareValue(_wordAt(cd, 4), true);
            if (sel == REDEEM) return _shareValue(_wordAt(cd, 4), false);
            if (sel == TRANSFER || sel == APPROVE) return _shareValue(_wordAt(cd, 36), false);
            if (sel == TRANSFER_FROM) return _shareValue(_wordAt(cd, 68), false);
            return (0, false, "");
        }
        if (x.target != address(usdc)) return (0, false, "");
        if (sel == TRANSFER) return (_wordAt(cd, 36), false, "");
        if (sel == TRANSFER_FROM) return (_wordAt(cd, 68), false, "");
        if (sel == APPROVE) return (_assetApprovalCounts(address(uint160(_wordAt(cd, 4))), _wordAt(cd, 36)), false, "");
        return (0, false, "");
    }

    /// How much an asset approve counts. This is the rule commit 2e197a1 changed: an approve whose spender
    /// is the vault itself counts 0 (the vault can only pull it through a deposit or mint, which is
    /// counted); any other spender counts the amount. For an enforcer without that change, return `amount`.
    function _assetApprovalCounts(
        address spender,
        uint256 amount
    ) internal view returns (uint256) {
        return spender == address(vault) ? 0 : amount;
    }

    /// Whether the model lets approve(vault, x) + deposit(x) count x once (the coverage test asks).
    function approveToVaultIsFree() external view returns (bool) {
        return _assetApprovalCounts(address(vault), 1) == 0;
    }

    /// previewMint for a mint, convertToAssets otherwise; type(uint256).max shares are unlimited.
    function _shareValue(
        uint256 shares,
        bool isMint
    ) internal view returns (uint256, bool, bytes memory) {
        if (shares == MAX) return (MAX, false, "");
        if (isMint) {
            try vault.previewMint(shares) returns (uint256 a) {
                return (a, false, "");
            } catch (bytes memory err) {
                return (0, true, err);
            }
        }
        try vault.convertToAssets(shares) returns (uint256 a) {
            return (a, false, "");
        } catch (bytes memory err) {
            return (0, true, err);
        }
    }

    // ------------------------------------------------------------------ generators

    /// Mostly valid terms with a spread of caps; one call in 16 has bad bps or a bad length.
    function _terms(
        uint256 seed
    ) internal view returns (Call memory c) {
        c.bps = _bps(seed);
        c.terms = abi.encode(address(vault), c.bps);
        uint256 r = (seed >> 8) % 32;
        if (r == 0) {
            uint16 bad = (seed >> 16) % 2 == 0 ? 0 : uint16(bound(seed >> 17, 10_001, type(uint16).max));
            c.terms = abi.encode(address(vault), bad);
            c.fault = abi.encodeWithSelector(VaultNAVEnforcer.InvalidNavBps.selector, bad);
        } else if (r == 1) {
            c.terms = (seed >> 16) % 2 == 0 ? abi.encodePacked(c.terms, bytes1(0)) : _truncate(c.terms, 63);
            c.fault = abi.encodeWithSelector(VaultNAVEnforcer.InvalidTermsLength.selector, c.terms.length);
        }
    }

    function _bps(
        uint256 seed
    ) internal pure returns (uint16) {
        uint256 r = seed % 10;
        if (r < 8) return [uint16(1), 10, 100, 1000, 2500, 5000, 9999, 10_000][r];
        return uint16(bound(seed >> 4, 1, 10_000));
    }

    /// Single or batch, default or try-mode (both allowed: the hook is stateless); with sound terms, one
    /// call in 24 uses an unsupported call type.
    function _setMode(
        Call memory c,
        uint256 r
    ) internal pure {
        bytes1 execType = r % 3 == 0 ? TRY_EXEC : DEFAULT_EXEC;
        if (c.fault.length == 0 && (r >> 2) % 24 == 0) {
            bytes1 callType = (r >> 8) % 2 == 0 ? bytes1(0xff) : bytes1(0x02);
            c.mode = _mode(callType, execType);
            c.fault = abi.encodeWithSelector(ExecutionLib.UnsupportedCallType.selector, callType);
        } else {
            c.mode = _mode(c.asBatch ? BATCH : SINGLE, execType);
        }
    }

    function _execution(
        uint256 r,
        uint256 share
    ) internal view returns (Execution memory x) {
        uint256 kind = r % 12;
        uint256 a = _amount(r >> 8, share);
        uint256 s = _toShares(a, r >> 16);
        address vaultAddr = address(vault);
        if (kind == 0) x = Execution(vaultAddr, 0, abi.encodeWithSelector(DEPOSIT, a, DELEGATOR));
        else if (kind == 1) x = Execution(vaultAddr, 0, _withdrawCall(a));
        else if (kind == 2) x = Execution(vaultAddr, 0, abi.encodeWithSelector(MINT, s, DELEGATOR));
        else if (kind == 3) x = Execution(vaultAddr, 0, abi.encodeWithSelector(REDEEM, s, DELEGATOR, DELEGATOR));
        else if (kind == 4) x = Execution(vaultAddr, 0, abi.encodeWithSelector(TRANSFER, PAYEE, s));
        else if (kind == 5) x = Execution(vaultAddr, 0, abi.encodeWithSelector(TRANSFER_FROM, DELEGATOR, PAYEE, s));
        else if (kind == 6) x = Execution(vaultAddr, 0, abi.encodeWithSelector(APPROVE, _spender(r >> 24), s));
        else if (kind == 7) x = Execution(address(usdc), 0, abi.encodeWithSelector(TRANSFER, PAYEE, a));
        else if (kind == 8) x = Execution(address(usdc), 0, abi.encodeWithSelector(TRANSFER_FROM, DELEGATOR, PAYEE, a));
        else if (kind == 9) x = Execution(address(usdc), 0, abi.encodeWithSelector(APPROVE, _spender(r >> 24), a));
        else if (kind == 10) x = _uncounted(r >> 24, a);
        else x = _overflowingShares(r >> 24);
        if ((r >> 200) % 16 == 0 && x.callData.length > 4) {
            x.callData = _truncate(x.callData, bound(r >> 204, 4, x.callData.length - 1)); // words read zero-padded
        }
    }

    /// Calls that count 0: another token, other selectors on the asset and the vault, native value, empty
    /// and sub-selector calldata.
    function _uncounted(
        uint256 r,
        uint256 a
    ) internal view returns (Execution memory) {
        uint256 k = r % 6;
        if (k == 0) return Execution(address(other), 0, abi.encodeWithSelector(TRANSFER, PAYEE, a));
        if (k == 1) return Execution(address(usdc), 0, abi.encodeWithSignature("mint(address,uint256)", PAYEE, a));
        if (k == 2) return Execution(address(vault), 0, abi.encodeWithSignature("balanceOf(address)", DELEGATOR));
        if (k == 3) return Execution(PAYEE, a, "");
        if (k == 4) return Execution(address(vault), 0, hex"6e553f");
        return Execution(PAYEE, 0, abi.encodeWithSelector(REDEEM, a, DELEGATOR, DELEGATOR));
    }

    /// Share amounts whose conversion overflows inside the vault once it holds assets and shares.
    function _overflowingShares(
        uint256 r
    ) internal view returns (Execution memory) {
        uint256 s = (1 << 255) + (r >> 8) % 1e18;
        bytes4 sel = [REDEEM, MINT, TRANSFER][r % 3];
        bytes memory cd = sel == REDEEM
            ? abi.encodeWithSelector(REDEEM, s, DELEGATOR, DELEGATOR)
            : sel == MINT ? abi.encodeWithSelector(MINT, s, DELEGATOR) : abi.encodeWithSelector(TRANSFER, PAYEE, s);
        return Execution(address(vault), 0, cd);
    }

    /// Around this execution's share of the cap, sometimes 0, far above or unlimited.
    function _amount(
        uint256 r,
        uint256 share
    ) internal pure returns (uint256) {
        uint256 k = r % 16;
        if (k == 0) return 0;
        if (k < 6) return bound(r >> 4, 0, share + 1);
        if (k < 11) return bound(r >> 4, 0, 2 * share + 2);
        if (k < 13) return share;
        if (k < 15) return _logAmount(r >> 4, 24);
        return MAX;
    }

    function _toShares(
        uint256 assets,
        uint256 r
    ) internal view returns (uint256) {
        if (assets == MAX || r % 8 == 0) return assets; // unlimited, or shares taken at face value
        try vault.convertToShares(assets) returns (uint256 shares) {
            return shares;
        } catch {
            return assets; // after many losses the share supply can be too large for the vault's math
        }
    }

    function _spender(
        uint256 r
    ) internal view returns (address) {
        return r % 2 == 0 ? address(vault) : PAYEE;
    }

    function _withdrawCall(
        uint256 assets
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(WITHDRAW, assets, DELEGATOR, DELEGATOR);
    }
}
