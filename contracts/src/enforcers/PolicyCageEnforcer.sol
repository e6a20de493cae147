// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { CaveatEnforcer } from "./CaveatEnforcer.sol";
import { SequencerUptimeCheck } from "./SequencerUptimeCheck.sol";
import { ExecutionLib, Execution } from "../libraries/ExecutionLib.sol";
import { UsdValuation, TokenFeed } from "../libraries/UsdValuation.sol";
import { IPolicyCage } from "../interfaces/IPolicyCage.sol";
import { IERC4626 } from "../interfaces/IERC4626.sol";

/// @notice One approved asset of a constitution and the most of the portfolio it may be.
struct AssetBound {
    address asset;
    uint16 maxConcentrationBps;
}

/// @notice A constitution's on-chain encoding: its hash is keccak256(abi.encode(Constitution)), the
///         value the PolicyCage holds for the Golem. Assets sorted by address, each once, never the base
///         asset; revokeOnMask has one bit per rule (custody's revocation cascade; not read here).
struct Constitution {
    uint8 v;
    address baseAsset;
    AssetBound[] assets;
    uint256 maxTransactionUsd;
    uint256 maxSessionUsd;
    uint256 maxDayUsd;
    uint16 maxDrawdownBps;
    uint8 revokeOnMask;
}

/// @title PolicyCageEnforcer
/// @notice Binds the owner's constitution for a Golem on-chain, on the delegator's (the owner's) account:
///         - constitutionHash: the constitution in the terms must be the one the PolicyCage holds for the
///           Golem, so changing the constitution on-chain stops every redemption of a delegation carrying
///           the old one, closes included;
///         - approvedAsset: an execution may not leave the balance of an unapproved asset it can see
///           (see "watched") higher than it found it;
///         - maxConcentration: an execution that raised an approved asset's balance may not leave that
///           asset above its maxConcentrationBps of the portfolio;
///         - maxDrawdown: an execution that took on new risk may not leave the portfolio more than
///           maxDrawdownBps below its high-water mark.
/// @dev Terms: abi.encode(address policyCage, address golem, uint32 maxPriceAge, bytes constitution,
///      TokenFeed[] feeds), where `constitution` is abi.encode(Constitution) exactly as its hash is taken.
///      Rules on bad terms revert InvalidTerms(field, rule) or InvalidTermsLength / InvalidTokenFeed.
///
///      beforeHook checks the hash and records, in transient storage keyed by (DelegationManager,
///      delegationHash), the delegator's balance of every watched asset; afterHook, which the manager
///      calls right after that redemption's execution, compares. Watched: the base asset and the approved
///      assets (the portfolio), then the other tokens of the feed list and the execution's targets
///      (skipping ones without an ERC-20 balanceOf). A token neither priced in the terms nor called by the
///      execution is not seen; the delegation's target and calldata caveats bound which ones it can reach.
///
///      "Increased" means a larger balance in the asset's own units after the execution than before it.
///      "New risk" means an approved asset other than the base asset increased. An execution with no new
///      risk (a close into the base asset, an approval, a withdrawal) reads no price: a stale feed or a
///      down sequencer can never keep the owner in a position. An execution with new risk is valued:
///      each approved asset priced by its feed in the terms, or, when it has none, as an ERC-4626 vault
///      (convertToAssets of the shares, priced by the vault's asset's feed); otherwise UnpricedAsset.
///      Both sides are valued at the prices and share rates after the execution (one read each).
///      The concentration is ceil(position * 10000 / portfolio) after the execution (10000 when the
///      portfolio is worth 0). The high-water mark is kept per (DelegationManager, delegator,
///      constitution hash): it starts at the first new risk taken under a constitution and rises to the
///      larger of the portfolio before and after each new risk; the drawdown is
///      floor((mark - portfolio after) * 10000 / mark). A new constitution starts a new mark.
contract PolicyCageEnforcer is CaveatEnforcer, SequencerUptimeCheck {
    error InvalidTerms(string field, string rule);
    error ConstitutionHash(address golem, bytes32 constitutionHash, bytes32 cageHash);
    error ApprovedAsset(address asset, uint256 balanceBefore, uint256 balanceAfter);
    error MaxConcentration(address asset, uint256 positionUsd, uint256 portfolioUsd, uint256 positionBps, uint256 limitBps);
    error MaxDrawdown(uint256 highWaterMarkUsd, uint256 portfolioUsd, uint256 drawdownBps, uint256 limitBps);

    event HighWaterMarkRaised(
        address indexed delegationManager, address indexed delegator, bytes32 indexed constitutionHash, uint256 highWaterMarkUsd
    );

    uint256 internal constant BPS = 10_000;
    uint256 internal constant MAX_ASSETS = 64;

    mapping(address delegationManager => mapping(address delegator => mapping(bytes32 constitutionHash => uint256))) private
        _highWaterMarks;

    /// @param sequencerUptimeFeed_ The chain's L2 sequencer uptime feed (zero: none, no check).
    /// @param sequencerGracePeriod_ Seconds after the sequencer returns during which prices are refused.
    constructor(
        address sequencerUptimeFeed_,
        uint256 sequencerGracePeriod_
    ) SequencerUptimeCheck(sequencerUptimeFeed_, sequencerGracePeriod_) { }

    /// @notice The portfolio's high-water mark (USD6) under a constitution, for a delegator's redemptions
    ///         through one DelegationManager; 0 until the first new risk.
    function highWaterMark(
        address delegationManager,
        address delegator,
        bytes32 constitutionHash_
    ) external view returns (uint256) {
        return _highWaterMarks[delegationManager][delegator][constitutionHash_];
    }

    /// @notice Refuses a redemption whose constitution is not the PolicyCage's for the Golem; records the
    ///         delegator's watched balances for afterHook.
    /// @dev Reverts ConstitutionHash, InvalidTerms, InvalidTermsLength, InvalidTokenFeed, UnsupportedCallType.
    function beforeHook(
        bytes calldata terms,
        bytes calldata,
        bytes32 mode,
        bytes calldata executionCallData,
        bytes32 delegationHash,
        address delegator,
        address
    ) public override {
        (Constitution memory c,, TokenFeed[] memory feeds,) = _decodeTerms(terms, true);
        address[] memory watched = _watched(c, feeds, ExecutionLib.decode(mode, executionCallData), delegator);
        uint256 slot = _slot(delegationHash);
        for (uint256 i; i < watched.length; ++i) {
            uint256 held = _balanceOf(watched[i], delegator);
            assembly ("memory-safe") {
                tstore(add(slot, i), held)
            }
        }
    }

    /// @notice Refuses an execution that left an unapproved asset increased, an approved asset it
    ///         increased above its concentration bound, or new risk past the drawdown bound.
    /// @dev Reverts ApprovedAsset, MaxConcentration, MaxDrawdown, UnpricedAsset, StalePrice, InvalidPrice,
    ///      SequencerDown, SequencerGracePeriodNotOver, and the terms errors of beforeHook.
    function afterHook(
        bytes calldata terms,
        bytes calldata,
        bytes32 mode,
        bytes calldata executionCallData,
        bytes32 delegationHash,
        address delegator,
        address
    ) public override {
        _after(terms, ExecutionLib.decode(mode, executionCallData), _slot(delegationHash), delegator);
    }

    function _after(
        bytes calldata terms,
        Execution[] memory executions,
        uint256 slot,
        address delegator
    ) private {
        (Constitution memory c, bytes32 hash, TokenFeed[] memory feeds, uint32 maxPriceAge) = _decodeTerms(terms, false);
        address[] memory watched = _watched(c, feeds, executions, delegator);
        (uint256[] memory before, uint256[] memory afterwards, bool newRisk) =
            _compare(watched, c.assets.length + 1, slot, delegator);
        if (!newRisk) return;
        _requireSequencerUp();
        (uint256[] memory usdAfter, uint256 portfolioAfter, uint256 portfolioBefore) =
            _value(watched, c.assets.length + 1, before, afterwards, feeds, maxPriceAge);
        uint256 mark = _checkDrawdown(c.maxDrawdownBps, hash, delegator, portfolioBefore, portfolioAfter);
        _checkConcentration(c, watched, before, afterwards, usdAfter, portfolioAfter);
        if (portfolioAfter > mark) mark = portfolioAfter;
        if (mark != _highWaterMarks[msg.sender][delegator][hash]) {
            _highWaterMarks[msg.sender][delegator][hash] = mark;
            emit HighWaterMarkRaised(msg.sender, delegator, hash, mark);
        }
    }

    /// @dev Reverts MaxConcentration for the first approved asset the execution increased that is now
    ///      above its bound: ceil(position * 10000 / portfolio), 10000 when the portfolio is worth 0.
    function _checkConcentration(
        Constitution memory c,
        address[] memory watched,
        uint256[] memory before,
        uint256[] memory afterwards,
        uint256[] memory usdAfter,
        uint256 portfolioAfter
    ) private pure {
        for (uint256 i = 1; i <= c.assets.length; ++i) {
            if (afterwards[i] <= before[i]) continue;
            uint256 positionBps = portfolioAfter == 0 ? BPS : UsdValuation.mulDiv(usdAfter[i], BPS, portfolioAfter, true);
            uint256 limit = c.assets[i - 1].maxConcentrationBps;
            if (positionBps > limit) revert MaxConcentration(watched[i], usdAfter[i], portfolioAfter, positionBps, limit);
        }
    }

    /// @dev The balances beforeHook recorded (clearing them) and now; reverts ApprovedAsset for an
    ///      increased asset past the portfolio's `n`; newRisk when an approved non-base asset increased.
    function _compare(
        address[] memory watched,
        uint256 n,
        uint256 slot,
        address delegator
    ) private returns (uint256[] memory before, uint256[] memory afterwards, bool newRisk) {
        before = new uint256[](watched.length);
        afterwards = new uint256[](watched.length);
        for (uint256 i; i < watched.length; ++i) {
            uint256 b;
            assembly ("memory-safe") {
                b := tload(add(slot, i))
                tstore(add(slot, i), 0)
            }
            before[i] = b;
            afterwards[i] = _balanceOf(watched[i], delegator);
            if (afterwards[i] <= b) continue;
            if (i >= n) revert ApprovedAsset(watched[i], b, afterwards[i]);
            if (i > 0) newRisk = true;
        }
    }

    /// @dev The high-water mark the new risk is measured against (the stored one, or the portfolio before
    ///      when higher); reverts MaxDrawdown when the portfolio after is past the bound below it.
    function _checkDrawdown(
        uint16 maxDrawdownBps,
        bytes32 hash,
        address delegator,
        uint256 portfolioBefore,
        uint256 portfolioAfter
    ) private view returns (uint256 mark) {
        uint256 stored = _highWaterMarks[msg.sender][delegator][hash];
        mark = stored > portfolioBefore ? stored : portfolioBefore;
        if (mark == 0 || portfolioAfter >= mark) return mark;
        uint256 drawdownBps = UsdValuation.mulDiv(mark - portfolioAfter, BPS, mark, false);
        if (drawdownBps > maxDrawdownBps) revert MaxDrawdown(mark, portfolioAfter, drawdownBps, maxDrawdownBps);
    }

    /// @notice Decodes and checks the terms as the hooks do (not the PolicyCage's hash); reverts
    ///         InvalidTerms, InvalidTermsLength or InvalidTokenFeed.
    function getTermsInfo(
        bytes calldata terms
    )
        external
        pure
        returns (
            address policyCage,
            address golem,
            uint32 maxPriceAge,
            Constitution memory constitution,
            bytes32 constitutionHash,
            TokenFeed[] memory feeds
        )
    {
        (policyCage, golem, maxPriceAge, constitution, constitutionHash, feeds) = _decodeTermsPure(terms);
    }

    // ---------------------------------------------------------------- valuation

    /// @dev A portfolio asset's price as this execution values it.
    struct Price {
        uint256 answer;
        uint256 feedDecimals;
        uint256 tokenDecimals;
        bool isVault;
    }

    /// @dev USD6 of each portfolio asset after, and the whole portfolio after and before, at the prices
    ///      and share rates after the execution.
    function _value(
        address[] memory watched,
        uint256 n,
        uint256[] memory before,
        uint256[] memory afterwards,
        TokenFeed[] memory feeds,
        uint32 maxPriceAge
    ) private view returns (uint256[] memory usdAfter, uint256 portfolioAfter, uint256 portfolioBefore) {
        Price[] memory prices = _prices(watched, n, feeds, maxPriceAge);
        usdAfter = new uint256[](n);
        for (uint256 i; i < n; ++i) {
            usdAfter[i] = _usd(watched[i], afterwards[i], prices[i]);
            portfolioAfter = UsdValuation.satAdd(portfolioAfter, usdAfter[i]);
            portfolioBefore = UsdValuation.satAdd(portfolioBefore, _usd(watched[i], before[i], prices[i]));
        }
    }

    /// @dev Each portfolio asset's price: its feed, or a vault's asset's feed; each feed read once.
    function _prices(
        address[] memory watched,
        uint256 n,
        TokenFeed[] memory feeds,
        uint32 maxPriceAge
    ) private view returns (Price[] memory prices) {
        prices = new Price[](n);
        Price[] memory byFeed = new Price[](feeds.length);
        for (uint256 i; i < n; ++i) {
            uint256 f = UsdValuation.indexOf(feeds, watched[i]);
            bool isVault = f == UsdValuation.NOT_LISTED;
            if (isVault) f = _vaultFeed(watched[i], feeds);
            if (byFeed[f].answer == 0) {
                (uint256 answer, uint8 feedDecimals) = UsdValuation.readPrice(feeds[f].feed, maxPriceAge);
                byFeed[f] = Price(answer, feedDecimals, feeds[f].decimals, false);
            }
            prices[i] = Price(byFeed[f].answer, byFeed[f].feedDecimals, byFeed[f].tokenDecimals, isVault);
        }
    }

    /// @dev USD6 of `amount` of an asset, a vault's shares through convertToAssets.
    function _usd(
        address asset,
        uint256 amount,
        Price memory p
    ) private view returns (uint256) {
        if (amount == 0) return 0;
        if (p.isVault) amount = IERC4626(asset).convertToAssets(amount);
        return UsdValuation.toUsd(amount, p.answer, p.tokenDecimals, p.feedDecimals);
    }

    /// @dev The feed index of a vault's asset, or UnpricedAsset(vault) when it is not a vault of a priced asset.
    function _vaultFeed(
        address vault,
        TokenFeed[] memory feeds
    ) private view returns (uint256 f) {
        (bool ok, bytes memory ret) = vault.staticcall(abi.encodeCall(IERC4626.asset, ()));
        if (!ok || ret.length < 32) revert UsdValuation.UnpricedAsset(vault);
        address underlying = abi.decode(ret, (address));
        f = underlying == address(0) ? UsdValuation.NOT_LISTED : UsdValuation.indexOf(feeds, underlying);
        if (f == UsdValuation.NOT_LISTED) revert UsdValuation.UnpricedAsset(vault);
    }

    // ---------------------------------------------------------------- watched assets

    /// @dev The base asset, the approved assets in the constitution's order, then the feed list's other
    ///      tokens and the execution's other targets (each once; native ETH and the delegator excluded).
    function _watched(
        Constitution memory c,
        TokenFeed[] memory feeds,
        Execution[] memory executions,
        address delegator
    ) private pure returns (address[] memory watched) {
        uint256 n = c.assets.length + 1;
        watched = new address[](n + feeds.length + executions.length);
        watched[0] = c.baseAsset;
        for (uint256 i = 1; i < n; ++i) {
            watched[i] = c.assets[i - 1].asset;
        }
        uint256 count = n;
        for (uint256 i; i < feeds.length; ++i) {
            count = _add(watched, count, feeds[i].token, delegator);
        }
        for (uint256 i; i < executions.length; ++i) {
            count = _add(watched, count, executions[i].target, delegator);
        }
        assembly ("memory-safe") {
            mstore(watched, count)
        }
    }

    function _add(
        address[] memory watched,
        uint256 count,
        address token,
        address delegator
    ) private pure returns (uint256) {
        if (token == address(0) || token == delegator) return count;
        for (uint256 j; j < count; ++j) {
            if (watched[j] == token) return count;
        }
        watched[count] = token;
        return count + 1;
    }

    /// @dev balanceOf(account), or 0 when `token` answers no 32-byte word (not an ERC-20: a router).
    function _balanceOf(
        address token,
        address account
    ) private view returns (uint256 balance) {
        if (token.code.length == 0) return 0;
        (bool ok, bytes memory ret) = token.staticcall(abi.encodeWithSelector(0x70a08231, account));
        if (!ok || ret.length < 32) return 0;
        balance = abi.decode(ret, (uint256));
    }

    /// @dev One transient slot per watched asset, from this base.
    function _slot(
        bytes32 delegationHash
    ) private view returns (uint256) {
        return uint256(keccak256(abi.encode(msg.sender, delegationHash, "PolicyCage.before")));
    }

    // ---------------------------------------------------------------- terms

    function _decodeTerms(
        bytes calldata terms,
        bool checkCage
    ) private view returns (Constitution memory c, bytes32 hash, TokenFeed[] memory feeds, uint32 maxPriceAge) {
        address policyCage;
        address golem;
        (policyCage, golem, maxPriceAge, c, hash, feeds) = _decodeTermsPure(terms);
        if (!checkCage) return (c, hash, feeds, maxPriceAge);
        bytes32 cageHash = IPolicyCage(policyCage).constitutionHash(golem);
        if (cageHash != hash) revert ConstitutionHash(golem, hash, cageHash);
    }

    function _decodeTermsPure(
        bytes calldata terms
    )
        private
        pure
        returns (
            address policyCage,
            address golem,
            uint32 maxPriceAge,
            Constitution memory c,
            bytes32 hash,
            TokenFeed[] memory feeds
        )
    {
        _requireLayout(terms);
        bytes memory encoded;
        (policyCage, golem, maxPriceAge, encoded, feeds) = abi.decode(terms, (address, address, uint32, bytes, TokenFeed[]));
        if (policyCage == address(0)) revert InvalidTerms("policyCage", "must be the PolicyCage's address");
        if (golem == address(0)) revert InvalidTerms("golem", "must be the Golem's key");
        UsdValuation.validateFeeds(feeds);
        c = _decodeConstitution(encoded);
        hash = keccak256(encoded);
    }

    /// @dev Canonical abi.encode of (address, address, uint32, bytes, TokenFeed[]), clean high bits in
    ///      the static words, so abi.decode never reverts without a reason.
    function _requireLayout(
        bytes calldata terms
    ) private pure {
        uint256 len = terms.length;
        if (len < 224) revert UsdValuation.InvalidTermsLength(len);
        if (_word(terms, 0) >> 160 != 0) revert InvalidTerms("policyCage", "must be an address");
        if (_word(terms, 32) >> 160 != 0) revert InvalidTerms("golem", "must be an address");
        if (_word(terms, 64) >> 32 != 0) revert InvalidTerms("maxPriceAge", "must be a uint32 of seconds");
        if (_word(terms, 96) != 160) revert UsdValuation.InvalidTermsLength(len);
        uint256 bytesLen = _word(terms, 160);
        if (bytesLen > len) revert UsdValuation.InvalidTermsLength(len);
        uint256 feedsAt = 192 + ((bytesLen + 31) & ~uint256(31));
        if (_word(terms, 128) != feedsAt || len < feedsAt + 32) revert UsdValuation.InvalidTermsLength(len);
        uint256 count = _word(terms, feedsAt);
        if (count > len / 96 || len != feedsAt + 32 + count * 96) revert UsdValuation.InvalidTermsLength(len);
    }

    function _word(
        bytes calldata data,
        uint256 at
    ) private pure returns (uint256) {
        return uint256(bytes32(data[at:at + 32]));
    }

    /// @dev abi.encode(Constitution) with the constitution's own rules, each refusal naming its field.
    function _decodeConstitution(
        bytes memory e
    ) private pure returns (Constitution memory c) {
        uint256 len = e.length;
        // offset to the tuple, then 8 head words, then the assets array's length.
        if (len < 320 || UsdValuation.wordAt(e, 0) != 32 || UsdValuation.wordAt(e, 96) != 256) {
            revert InvalidTerms("constitution", "must be abi.encode of the constitution tuple");
        }
        uint256 count = UsdValuation.wordAt(e, 288);
        if (count > MAX_ASSETS) revert InvalidTerms("constitution.assets", "must list at most 64 assets");
        if (len != 320 + count * 64) revert InvalidTerms("constitution", "must be abi.encode of the constitution tuple");
        if (UsdValuation.wordAt(e, 32) != 1) revert InvalidTerms("constitution.v", "must be 1");
        if (UsdValuation.wordAt(e, 64) >> 160 != 0 || UsdValuation.wordAt(e, 64) == 0) {
            revert InvalidTerms("constitution.baseAsset", "must be a non-zero address");
        }
        if (UsdValuation.wordAt(e, 224) > BPS) {
            revert InvalidTerms("constitution.maxDrawdownBps", "must be 0..10000 basis points");
        }
        if (UsdValuation.wordAt(e, 256) >> 8 != 0) revert InvalidTerms("constitution.revokeOnMask", "must be a uint8");
        for (uint256 i; i < count; ++i) {
            uint256 a = UsdValuation.wordAt(e, 320 + i * 64);
            if (a >> 160 != 0) revert InvalidTerms("constitution.assets.address", "must be an address");
            if (UsdValuation.wordAt(e, 352 + i * 64) > BPS) {
                revert InvalidTerms("constitution.assets.maxConcentrationBps", "must be 0..10000 basis points");
            }
        }
        c = abi.decode(e, (Constitution));
        address previous;
        for (uint256 i; i < count; ++i) {
            address a = c.assets[i].asset;
            if (a <= previous || a == c.baseAsset) {
                revert InvalidTerms("constitution.assets.address", "must be sorted by address, each once, and not the base asset");
            }
            previous = a;
        }
        if (c.maxTransactionUsd > c.maxSessionUsd || c.maxTransactionUsd > c.maxDayUsd) {
            revert InvalidTerms("constitution.maxTransactionUsd", "must not exceed maxSessionUsd or maxDayUsd");
        }
    }
}
