// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test } from "../lib/Test.sol";
import { Execution, ExecutionLib } from "../../src/libraries/ExecutionLib.sol";
import { UsdValuation, TokenFeed } from "../../src/libraries/UsdValuation.sol";
import { TestToken } from "../../src/test-assets/TestToken.sol";
import { MockPriceFeed } from "../../src/test-assets/MockPriceFeed.sol";
import { DailySpendLimitEnforcer } from "../../src/enforcers/DailySpendLimitEnforcer.sol";
import { ReplicantBudgetEnforcer } from "../../src/enforcers/ReplicantBudgetEnforcer.sol";

/// Random redemptions against a USD-valuing enforcer, called as the DelegationManager would, with an
/// independent model of what each call must do. Prices move, go stale, go non-positive; time moves.
/// Every outcome the enforcer gives that the model did not predict is counted in `mismatches`.
abstract contract PricedHandlerBase is Test {
    uint32 internal constant MAX_AGE = 3600;
    uint256 internal constant ASSETS = 4; // ETH, USDC, WETH, DAI (the order of the feeds in the terms)

    address[2] internal managers = [address(0xDE1E), address(0xDE2E)];
    uint256 public immutable hashCount; // delegations per manager

    /// (manager, delegationHash) for a fuzzed index: 2 managers x hashCount delegations.
    function keyOf(
        uint256 who
    ) public view returns (address manager, bytes32 hash) {
        manager = managers[who % 2];
        hash = keccak256(abi.encode("delegation", (who >> 1) % hashCount));
    }

    TestToken internal unlisted;
    address[ASSETS] internal tokens; // address(0) for ETH
    uint8[ASSETS] internal tokenDecimals = [18, 6, 18, 18];
    MockPriceFeed[ASSETS] internal feeds;
    TokenFeed[] internal feedList;

    uint256 public mismatches;
    uint256 public exceedingAccepted; // a call the model says exceeds its cap, yet it passed
    uint256 public calls;
    uint256 public accepted;
    uint256 public refusedOverCap;
    uint256 public refusedPrice;
    uint256 public refusedTryMode;
    uint256 public acceptedAtCap; // accepted with spent + usd == cap exactly
    uint256 public refusedOneOver; // refused with spent + usd == cap + 1
    string public lastMismatch;

    constructor(
        uint256 hashCount_
    ) {
        hashCount = hashCount_;
        vm.warp(1_700_000_000);
        tokens[1] = address(new TestToken("USD Coin", "USDC", 6));
        tokens[2] = address(new TestToken("Wrapped Ether", "WETH", 18));
        tokens[3] = address(new TestToken("Dai", "DAI", 18));
        unlisted = new TestToken("Unlisted", "UNL", 18);
        feeds[0] = new MockPriceFeed(8, 3000e8, "ETH / USD");
        feeds[1] = new MockPriceFeed(8, 1e8, "USDC / USD");
        feeds[2] = new MockPriceFeed(8, 3000e8, "WETH / USD");
        feeds[3] = new MockPriceFeed(18, 1e18, "DAI / USD");
        for (uint256 i; i < ASSETS; ++i) {
            feedList.push(TokenFeed(tokens[i], tokenDecimals[i], address(feeds[i])));
        }
    }

    // ------------------------------------------------------------------ time and prices

    /// Mostly minutes, sometimes most of a day or more (day rollovers, expiry, stale feeds).
    function warp(
        uint256 seconds_
    ) external {
        uint256 cap = seconds_ % 4 == 0 ? 36 hours : 2 hours;
        vm.warp(block.timestamp + bound(seconds_ >> 2, 0, cap));
    }

    /// A keeper round: every feed republishes its last answer now.
    function refreshPrices() external {
        for (uint256 i; i < ASSETS; ++i) {
            (, int256 answer,,,) = feeds[i].latestRoundData();
            feeds[i].setAnswer(answer);
        }
    }

    function setPrice(
        uint256 which,
        uint256 seed
    ) external {
        which = which % ASSETS;
        int256 answer;
        if (seed % 12 == 0) answer = 0;
        else if (seed % 12 == 1) answer = -int256(bound(seed >> 8, 1, 1e20));
        else if (which == 1) answer = seed % 2 == 0 ? int256(1e8) : int256(bound(seed >> 8, 5e7, 2e8)); // mostly pegged
        else if (which == 3) answer = int256(bound(seed >> 8, 5e17, 2e18));
        else answer = int256(bound(seed >> 8, 1e6, 1e12));
        feeds[which].setAnswer(answer);
    }

    function makeStale(
        uint256 which,
        uint256 age
    ) external {
        which = which % ASSETS;
        // half the time exactly at the edge: maxAge old (fresh) or one second more (stale)
        age = age % 2 == 0 ? MAX_AGE + (age >> 1) % 2 : bound(age >> 1, 0, 3 * uint256(MAX_AGE));
        (, int256 answer,,,) = feeds[which].latestRoundData();
        feeds[which].setRoundData(answer, block.timestamp > age ? block.timestamp - age : 0);
    }

    // ------------------------------------------------------------------ redemptions

    struct Built {
        bytes32 mode;
        bytes executionCallData;
        uint256[ASSETS] amounts;
        bool[ASSETS] used; // the enforcer must read this asset's feed
        bool unlimited;
    }

    /// 1-3 executions: native value, transfer / transferFrom / approve of a listed or unlisted token,
    /// other selectors, sometimes an unlimited approval; single or batch; sometimes try-mode.
    function _build(
        uint256 seed
    ) internal view returns (Built memory b) {
        uint256 n = 1 + seed % 3;
        bool asBatch = n > 1 || (seed >> 2) % 2 == 0;
        bool tryMode = (seed >> 3) % 16 == 0;
        b.mode = bytes32(abi.encodePacked(asBatch ? bytes1(0x01) : bytes1(0x00), tryMode ? bytes1(0x01) : bytes1(0x00)));
        Execution[] memory e = new Execution[](n);
        for (uint256 i; i < n; ++i) {
            uint256 s = uint256(keccak256(abi.encode(seed, i)));
            uint256 kind = s % 7;
            uint256 asset = 1 + (s >> 8) % 3;
            uint256 amount = _amount(asset, s >> 16);
            address to = address(uint160(0xCAFE));
            if (kind == 0) {
                amount = _amount(0, s >> 16);
                e[i] = Execution(to, amount, "");
                b.amounts[0] += amount;
                if (amount != 0) b.used[0] = true;
            } else if (kind == 1 || kind == 2 || kind == 3) {
                bytes4 sel = kind == 1 ? bytes4(0xa9059cbb) : kind == 2 ? bytes4(0x095ea7b3) : bytes4(0x23b872dd);
                if ((s >> 200) % 20 == 0 && kind == 2) {
                    amount = type(uint256).max;
                    b.unlimited = true;
                } else {
                    b.amounts[asset] += amount;
                }
                if (amount != 0) b.used[asset] = true;
                e[i] = Execution(
                    tokens[asset],
                    0,
                    kind == 3 ? abi.encodeWithSelector(sel, address(this), to, amount) : abi.encodeWithSelector(sel, to, amount)
                );
            } else if (kind == 4) {
                e[i] = Execution(address(unlisted), 0, abi.encodeWithSelector(bytes4(0xa9059cbb), to, amount));
            } else if (kind == 5) {
                e[i] = Execution(tokens[asset], 0, abi.encodeWithSignature("mint(address,uint256)", to, amount));
            } else {
                e[i] = Execution(tokens[asset], 0, abi.encodeWithSelector(bytes4(0x095ea7b3), to, 0));
            }
        }
        b.executionCallData = asBatch ? abi.encode(e) : abi.encodePacked(e[0].target, e[0].value, e[0].callData);
    }

    /// A single USDC transfer priced at `remainingUsd` plus 0, 1 or 2 token units: lands exactly on the cap
    /// (and one micro-dollar over it) whenever USDC trades at $1.
    function _buildBoundary(
        uint256 remainingUsd,
        uint256 seed
    ) internal view returns (Built memory b) {
        (, int256 answer,,,) = feeds[1].latestRoundData();
        uint256 amount = answer > 0 ? remainingUsd * 1e8 / uint256(answer) + seed % 3 : seed % 3;
        b.mode = bytes32(0);
        b.executionCallData =
            abi.encodePacked(tokens[1], uint256(0), abi.encodeWithSelector(bytes4(0xa9059cbb), address(0xCAFE), amount));
        b.amounts[1] = amount;
        b.used[1] = amount != 0;
    }

    function _amount(
        uint256 asset,
        uint256 s
    ) internal pure returns (uint256) {
        if (asset == 0) return bound(s, 0, 0.5 ether);
        if (asset == 1) return bound(s, 0, 1500e6);
        if (asset == 2) return bound(s, 0, 0.5 ether);
        return bound(s, 0, 1500e18);
    }

    /// Reference valuation: whether a feed the enforcer must read is stale or non-positive, and the USD6
    /// value (ceil per asset of amount * answer * 1e6 / 10**(decimals + feedDecimals); unlimited = max).
    function _model(
        Built memory b
    ) internal view returns (bool priceError, uint256 usd) {
        for (uint256 i; i < ASSETS; ++i) {
            if (!b.used[i]) continue;
            (, int256 answer,, uint256 updatedAt,) = feeds[i].latestRoundData();
            if (answer <= 0 || (block.timestamp > updatedAt && block.timestamp - updatedAt > MAX_AGE)) {
                priceError = true;
                continue;
            }
            if (b.amounts[i] == 0) continue;
            uint256 num = b.amounts[i] * uint256(answer) * 1e6;
            uint256 den = 10 ** (uint256(tokenDecimals[i]) + feeds[i].decimals());
            usd += num / den + (num % den == 0 ? 0 : 1);
        }
        if (b.unlimited) usd = type(uint256).max;
    }

    function _mismatch(
        string memory why
    ) internal {
        mismatches++;
        lastMismatch = why;
    }

    function _selectorOf(
        bytes memory err
    ) internal pure returns (bytes4 sel) {
        if (err.length >= 4) sel = bytes4(err);
    }
}

contract DailySpendHandler is PricedHandlerBase {
    uint256 public constant LIMIT = 1000e6;
    DailySpendLimitEnforcer public enforcer;
    bytes public terms;

    // model: recorded spend per (manager, hash, day), and the keys touched so invariants can walk them
    mapping(address => mapping(bytes32 => mapping(uint256 => uint256))) public modelSpent;

    struct Key {
        address manager;
        bytes32 hash;
        uint256 day;
    }
    Key[] public touched;
    mapping(bytes32 => bool) private _seen;

    constructor(
        DailySpendLimitEnforcer enforcer_
    ) PricedHandlerBase(2) {
        enforcer = enforcer_;
        terms = abi.encode(LIMIT, MAX_AGE, feedList);
    }

    function touchedCount() external view returns (uint256) {
        return touched.length;
    }

    function redeem(
        uint256 who,
        uint256 seed
    ) external {
        _execute(who, _build(seed));
    }

    /// Spend exactly what is left today (or a unit more).
    function redeemRemaining(
        uint256 who,
        uint256 seed
    ) external {
        (address manager, bytes32 hash) = keyOf(who);
        uint256 spent = modelSpent[manager][hash][block.timestamp / 1 days];
        _execute(who, _buildBoundary(LIMIT - spent, seed));
    }

    /// Jump to the last second of the UTC day, or the first of the next.
    function warpToDayEnd(
        uint256 seed
    ) external {
        vm.warp((block.timestamp / 1 days + 1) * 1 days - 1 + seed % 2);
    }

    function _execute(
        uint256 who,
        Built memory b
    ) internal {
        (address manager, bytes32 hash) = keyOf(who);
        uint256 day = block.timestamp / 1 days;
        bool tryMode = ExecutionLib.execType(b.mode) != 0x00;
        (bool priceError, uint256 usd) = _model(b);
        uint256 spent = modelSpent[manager][hash][day];
        bool over = usd > LIMIT - spent;
        calls++;

        vm.prank(manager);
        try enforcer.beforeHook(terms, "", b.mode, b.executionCallData, hash, address(0xA11CE), address(0xB0B)) {
            if (tryMode) return _mismatch("try-mode accepted");
            if (priceError) return _mismatch("bad price accepted");
            if (over) {
                exceedingAccepted++;
                return _mismatch("over the limit accepted");
            }
            accepted++;
            if (usd != 0 && spent + usd == LIMIT) acceptedAtCap++;
            if (usd != 0) {
                modelSpent[manager][hash][day] = spent + usd;
                bytes32 k = keccak256(abi.encode(manager, hash, day));
                if (!_seen[k]) {
                    _seen[k] = true;
                    touched.push(Key(manager, hash, day));
                }
            }
        } catch (bytes memory err) {
            bytes4 sel = _selectorOf(err);
            if (tryMode) {
                if (sel != ExecutionLib.UnsupportedExecType.selector) _mismatch("try-mode: wrong error");
                refusedTryMode++;
            } else if (priceError) {
                if (sel != UsdValuation.StalePrice.selector && sel != UsdValuation.InvalidPrice.selector) {
                    _mismatch("price: wrong error");
                }
                refusedPrice++;
            } else if (over) {
                bytes memory want =
                    abi.encodeWithSelector(DailySpendLimitEnforcer.DailySpendLimitExceeded.selector, day, spent, usd, LIMIT);
                if (keccak256(err) != keccak256(want)) _mismatch("over: wrong error data");
                refusedOverCap++;
                if (usd == LIMIT - spent + 1) refusedOneOver++;
            } else {
                _mismatch("a valid redemption was refused");
            }
        }
        if (enforcer.spentOn(manager, hash, day) != modelSpent[manager][hash][day]) _mismatch("state != model");
    }
}

contract ReplicantBudgetHandler is PricedHandlerBase {
    uint256 public constant BUDGET = 1500e6;
    uint64 public constant LIFESPAN = 20 days;
    ReplicantBudgetEnforcer public enforcer;
    bytes public terms;

    mapping(address => mapping(bytes32 => uint256)) public modelSpent;
    mapping(address => mapping(bytes32 => uint256)) public modelActivatedAt;
    uint256 public spentAfterExpiry; // any spend recorded after expiresAt
    uint256 public refusedExpired;
    uint256 public acceptedAtExpiry; // accepted at exactly expiresAt

    constructor(
        ReplicantBudgetEnforcer enforcer_
    ) PricedHandlerBase(8) {
        enforcer = enforcer_;
        terms = abi.encode(BUDGET, LIFESPAN, MAX_AGE, feedList);
    }

    function redeem(
        uint256 who,
        uint256 seed
    ) external {
        _execute(who, _build(seed));
    }

    /// Spend exactly what is left of the budget (or a unit more).
    function redeemRemaining(
        uint256 who,
        uint256 seed
    ) external {
        (address manager, bytes32 hash) = keyOf(who);
        _execute(who, _buildBoundary(BUDGET - modelSpent[manager][hash], seed));
    }

    /// Jump to one second before, at, or after a Replicant's expiry (if still ahead), let a keeper refresh
    /// the feeds, and redeem there.
    function redeemAtExpiry(
        uint256 who,
        uint256 seed
    ) external {
        (address manager, bytes32 hash) = keyOf(who);
        uint256 activatedAt = modelActivatedAt[manager][hash];
        if (activatedAt == 0) return;
        uint256 target = activatedAt + LIFESPAN + seed % 3 - 1;
        if (target <= block.timestamp) return;
        vm.warp(target);
        this.refreshPrices();
        _execute(who, _build(seed >> 2));
    }

    function _execute(
        uint256 who,
        Built memory b
    ) internal {
        (address manager, bytes32 hash) = keyOf(who);
        bool tryMode = ExecutionLib.execType(b.mode) != 0x00;
        (bool priceError, uint256 usd) = _model(b);
        uint256 activatedAt = modelActivatedAt[manager][hash];
        bool expired = activatedAt != 0 && block.timestamp > activatedAt + LIFESPAN;
        uint256 spent = modelSpent[manager][hash];
        bool over = usd > BUDGET - spent;
        calls++;

        vm.prank(manager);
        try enforcer.beforeHook(terms, "", b.mode, b.executionCallData, hash, address(0xA11CE), address(0xB0B)) {
            if (tryMode) return _mismatch("try-mode accepted");
            if (expired) {
                if (usd != 0) spentAfterExpiry++;
                return _mismatch("expired accepted");
            }
            if (priceError) return _mismatch("bad price accepted");
            if (over) {
                exceedingAccepted++;
                return _mismatch("over the budget accepted");
            }
            accepted++;
            if (usd != 0 && spent + usd == BUDGET) acceptedAtCap++;
            if (activatedAt != 0 && block.timestamp == activatedAt + LIFESPAN) acceptedAtExpiry++;
            if (activatedAt == 0) modelActivatedAt[manager][hash] = block.timestamp;
            modelSpent[manager][hash] = spent + usd;
        } catch (bytes memory err) {
            bytes4 sel = _selectorOf(err);
            if (tryMode) {
                if (sel != ExecutionLib.UnsupportedExecType.selector) _mismatch("try-mode: wrong error");
                refusedTryMode++;
            } else if (expired) {
                bytes memory want = abi.encodeWithSelector(
                    ReplicantBudgetEnforcer.ReplicantExpired.selector, block.timestamp, activatedAt + LIFESPAN
                );
                if (keccak256(err) != keccak256(want)) _mismatch("expired: wrong error data");
                refusedExpired++;
            } else if (priceError) {
                if (sel != UsdValuation.StalePrice.selector && sel != UsdValuation.InvalidPrice.selector) {
                    _mismatch("price: wrong error");
                }
                refusedPrice++;
            } else if (over) {
                bytes memory want =
                    abi.encodeWithSelector(ReplicantBudgetEnforcer.ReplicantBudgetExceeded.selector, spent, usd, BUDGET);
                if (keccak256(err) != keccak256(want)) _mismatch("over: wrong error data");
                refusedOverCap++;
                if (usd == BUDGET - spent + 1) refusedOneOver++;
            } else {
                _mismatch("a valid redemption was refused");
            }
        }
        (uint64 act, uint192 sp) = enforcer.replicants(manager, hash);
        if (act != modelActivatedAt[manager][hash] || sp != modelSpent[manager][hash]) _mismatch("state != model");
    }
}
